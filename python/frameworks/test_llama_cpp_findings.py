# SPDX-License-Identifier: MIT
"""Expected-failure tests for findings G1 and G2 (docs/FRAMEWORKS.md): each runs
one case of the quick suite (seed 1) on the llama.cpp plugin with the ropecheck
command and asserts the exact form of the divergence, so a ggml change in
either direction fails the test. Beside them, the VISION row's declaration:
what it judges and what it refuses.

Runs under the module's interpreter; the plugin comes from install.sh
(<venvs>/llama_cpp, ROPECHECK_FRAMEWORKS_VENVS, default build/frameworks).
Skipped, visibly, where it is absent."""
import os
import re

import pytest

import llama_cpp_ggml
import plugin_runner

VENVS = os.environ.get("ROPECHECK_FRAMEWORKS_VENVS",
                       os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "frameworks"))
PLUGIN = os.path.join(VENVS, llama_cpp_ggml.VENV, llama_cpp_ggml.PLUGIN)
pytestmark = pytest.mark.skipif(not os.path.exists(PLUGIN), reason=f"no llama.cpp plugin at {PLUGIN} (install.sh)")


def one_case(row_id, case, **override):
    row = dict(next(r for r in llama_cpp_ggml.ROWS if r["id"] == row_id), venv=llama_cpp_ggml.VENV, **override)
    rc, _, impl = plugin_runner.run_check(row, VENVS, ["--case", str(case), "--property", "ConformsToReference"])
    return rc, impl["failures"]


def test_ggml_rope_odd_head_dim_leaves_its_rows():
    # case 109: head_dim 3, rotary_dim 2, one token's rows end at the end of q_out
    rc, failures = one_case("llama_cpp_rope_ext_odd_head_dim", 109)
    assert rc == 1 and failures
    assert "head_dim=3 " in failures[0]["caseDescription"]
    assert re.search(r"signal 11 .*past the end of q_(in|out)", failures[0]["message"])
    # the table that refuses an odd head_dim says so instead of calling ggml
    rc, failures = one_case("llama_cpp_rope_ext", 109)
    assert rc == 1 and all(llama_cpp_ggml.REFUSAL in f["message"] for f in failures)


def test_imrope_leaves_pairs_past_the_interleaving():
    # case 95: a Qwen3-VL text token (mrope_text: every axis equal), interleaved over 3 axes
    rc, failures = one_case("llama_cpp_rope_multi_imrope", 95)
    assert rc == 1 and failures
    e = failures[0]["element"]
    x = re.search(r"x=(\S+)", e["detail"]).group(1)
    # the wrong element is its input, unrotated, where the rotation moves it by far more than its budget
    assert float.fromhex(e["got"]) == float.fromhex(x)
    assert abs(float.fromhex(e["expected"]) - float.fromhex(x)) > 4 * float.fromhex(e["budget"])


def test_vision_judges_qwen2_vl_vision_geometry():
    # on the row's config every case is Qwen2-VL's vision attention: 2 axes of 20 pairs, per-axis frequencies
    row = dict(next(r for r in llama_cpp_ggml.ROWS if r["id"] == "llama_cpp_rope_multi_vision"),
               venv=llama_cpp_ggml.VENV)
    rc, _, impl = plugin_runner.run_check(row, VENVS, ["--case", "3", "--property", "ConformsToReference"])
    assert rc == 0 and not impl["failures"]
    assert [(f["family"], f["cases"] - f["skipped"]) for f in impl["families"]] == [("axial_2d", 1)]


def test_vision_refuses_calls_its_pairing_does_not_say():
    # without the config, case 0 is a 1D call: VISION has no 1D form, so the plugin refuses it (every property)
    rc, failures = one_case("llama_cpp_rope_multi_vision", 0, config=None)
    assert rc == 1 and failures
    assert all(llama_cpp_ggml.REFUSAL + ": a call without 2 axes" in f["message"] for f in failures)
