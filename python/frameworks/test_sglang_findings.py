# SPDX-License-Identifier: MIT
"""Expected-failure test for finding S1 (docs/FRAMEWORKS.md): it
asserts the exact divergence, computed here in float64 from the formulas (not
from SGLang's output), so a SGLang change in either direction fails the test.

Runs under the module's interpreter; SGLang runs in a worker of its venv
(ROPECHECK_FRAMEWORKS_VENVS, default build/frameworks). Skipped, visibly,
where that venv is absent."""
import os

import numpy as np
import pytest

import findings_math
import proxy
from findings_math import rotate_f64
import sglang_native

VENVS = os.environ.get("ROPECHECK_FRAMEWORKS_VENVS",
                       os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "frameworks"))
PYTHON = os.path.join(VENVS, "layered", "bin", "python")
pytestmark = pytest.mark.skipif(not os.path.exists(PYTHON), reason=f"no SGLang venv at {PYTHON} (install.sh)")

D, B, S, L = 64, 10000.0, 4.0, 4096


@pytest.fixture(scope="module")
def sglang_kernel():
    row = next(r for r in sglang_native.ROWS if r["id"] == "sglang_native_f32")
    k = proxy.FrameworkKernel("sglang_native", row, PYTHON, env=row["env"])
    yield k
    k.close()





def call(kernel, scaling, positions, seq_len=0):
    return findings_math.call(kernel, {"rope_theta": B, "max_position_embeddings": L, "rope_scaling": scaling},
                              positions, D, seq_len)


def test_sglang_dynamic_is_static_ntk_at_s_times_L(sglang_kernel):
    positions = np.arange(0, L, 61, dtype=np.int64)
    n = 2 * L  # a sequence of 2 L tokens: HF's dynamic base at n; SGLang's is at s L whatever n is
    q, got = call(sglang_kernel, {"rope_type": "dynamic", "factor": S}, positions, seq_len=n)
    i = np.arange(0, D, 2, dtype=np.float64)
    static_at_sl = (B * (S * S - (S - 1)) ** (D / (D - 2))) ** (-i / D)  # rope_variant.py:881-885, n = s L
    hf_dynamic = (B * (S * n / L - (S - 1)) ** (D / (D - 2))) ** (-i / D)  # modeling_rope_utils, seq_len n > L
    assert np.abs(got - rotate_f64(q, positions, static_at_sl)).max() < 2e-3
    assert np.abs(got - rotate_f64(q, positions, hf_dynamic)).max() > 0.5
