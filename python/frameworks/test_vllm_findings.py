# SPDX-License-Identifier: MIT
"""Expected-failure tests for findings F1 and F2 (docs/FRAMEWORKS.md): each
asserts the exact divergence, computed here in float64 from the formulas (not
from vLLM's output), so a vLLM change in either direction fails the test.

Runs under the module's interpreter; vLLM runs in a worker of its venv
(ROPECHECK_FRAMEWORKS_VENVS, default build/frameworks). Skipped, visibly,
where that venv is absent."""
import os

import numpy as np
import pytest

import findings_math
import proxy
from findings_math import rotate_f64
import vllm_native

VENVS = os.environ.get("ROPECHECK_FRAMEWORKS_VENVS",
                       os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "frameworks"))
PYTHON = os.path.join(VENVS, "vllm", "bin", "python")
pytestmark = pytest.mark.skipif(not os.path.exists(PYTHON), reason=f"no vLLM venv at {PYTHON} (install.sh)")

D, B, S, L = 64, 10000.0, 4.0, 4096


@pytest.fixture(scope="module")
def vllm_kernel():
    row = next(r for r in vllm_native.ROWS if r["id"] == "vllm_native_f32")
    k = proxy.FrameworkKernel("vllm_native", row, PYTHON, env=row["env"])
    yield k
    k.close()





def call(kernel, scaling, positions, seq_len=0):
    return findings_math.call(kernel, {"rope_theta": B, "max_position_embeddings": L, "rope_scaling": scaling},
                              positions, D, seq_len)


def test_vllm_ntk_is_fixed_ntk_not_ntk_aware(vllm_kernel):
    positions = np.arange(0, 2000, 37, dtype=np.int64)
    q, got = call(vllm_kernel, {"rope_type": "ntk", "factor": S}, positions)
    i = np.arange(0, D, 2, dtype=np.float64)
    fixed_ntk = (B * S) ** (-i / D) / S ** (2 / D)              # ntk_scaling_rope.py:31-36
    ntk_aware = (B * S ** (D / (D - 2))) ** (-i / D)            # docs/FREQUENCY_SCHEMES.md, ropecheck's `ntk`
    assert np.abs(got - rotate_f64(q, positions, fixed_ntk)).max() < 2e-3   # fp32 angles up to p = 2000
    assert np.abs(got - rotate_f64(q, positions, ntk_aware)).max() > 0.5    # the O(1) divergence


def test_vllm_dynamic_is_default_for_hf_config(vllm_kernel):
    positions = np.arange(0, L, 61, dtype=np.int64)
    n = 4 * L  # HF's sequence length for the dynamic base
    q, got = call(vllm_kernel, {"rope_type": "dynamic", "factor": S}, positions, seq_len=n)
    i = np.arange(0, D, 2, dtype=np.float64)
    default = B ** (-i / D)
    hf_dynamic = (B * (S * n / L - (S - 1)) ** (D / (D - 2))) ** (-i / D)  # modeling_rope_utils, seq_len n > L
    assert np.abs(got - rotate_f64(q, positions, default)).max() < 2e-3
    assert np.abs(got - rotate_f64(q, positions, hf_dynamic)).max() > 0.5
