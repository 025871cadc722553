# SPDX-License-Identifier: MIT
"""Expected-failure test for finding M1 (docs/FRAMEWORKS.md): it asserts the
exact divergence, computed here in float64 from the formulas (not from
Megatron's output), so a Megatron change in either direction fails the test.

Runs under the module's interpreter; Megatron-core runs in a worker of the
layered venv (ROPECHECK_FRAMEWORKS_VENVS, default build/frameworks). Skipped,
visibly, where that venv is absent."""
import math
import os

import numpy as np
import pytest

import findings_math
import megatron_rope
import proxy
from findings_math import rotate_f64

VENVS = os.environ.get("ROPECHECK_FRAMEWORKS_VENVS",
                       os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "frameworks"))
PYTHON = os.path.join(VENVS, megatron_rope.VENV, "bin", "python")
pytestmark = pytest.mark.skipif(not os.path.exists(PYTHON), reason=f"no layered venv at {PYTHON} (install.sh)")

D, B = 128, 500000.0


def llama3_inv_freq(factor, lf, hf, L):
    """Llama 3.1's band rule (transformers modeling_rope_utils._compute_llama3_parameters) in float64."""
    out = []
    for i in range(0, D, 2):
        w = B ** (-i / D)
        wavelen = 2 * math.pi / w
        if wavelen < L / hf:
            out.append(w)
        elif wavelen > L / lf:
            out.append(w / factor)
        else:
            t = (L / wavelen - lf) / (hf - lf)
            out.append((1 - t) * w / factor + t * w)
    return np.array(out)




def test_megatron_llama3_fixes_its_band():
    row = next(r for r in megatron_rope.ROWS if r["id"] == "megatron_llama3_f32")
    kernel = proxy.FrameworkKernel("megatron_rope", row, PYTHON)
    scaling = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 2.0, "high_freq_factor": 16.0,
               "original_max_position_embeddings": 32768}
    positions = np.arange(0, 4000, 37, dtype=np.int64)
    q, got = findings_math.call(kernel, {"rope_theta": B, "rope_scaling": scaling}, positions, D)
    fixed = llama3_inv_freq(8.0, 1.0, 4.0, 8192)  # rotary_pos_embedding.py:92-98 defaults
    asked = llama3_inv_freq(8.0, 2.0, 16.0, 32768)
    assert np.abs(got - rotate_f64(q, positions, fixed)).max() < 2e-3
    assert np.abs(got - rotate_f64(q, positions, asked)).max() > 0.5
