# SPDX-License-Identifier: MIT
"""Expected-failure test for finding M1 (docs/FRAMEWORKS.md): it asserts the
exact divergence, computed here in float64 from the formulas (not from
Megatron's output), so a Megatron change in either direction fails the test.
Beside it, the M-RoPE row's adapter (megatron_mrope.py): each section turns
with its own axis.

Runs under the module's interpreter; Megatron-core runs in a worker of the
layered venv (ROPECHECK_FRAMEWORKS_VENVS, default build/frameworks). Skipped,
visibly, where that venv is absent."""
import math
import os
from types import SimpleNamespace

import numpy as np
import pytest

import findings_math
import megatron_mrope
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


def test_megatron_mrope_turns_each_section_with_its_axis():
    # Qwen2-VL's sections 16/24/24 of 64 pairs, three distinct axes; expected in float64 from the formula
    d, sections, t = 128, [16, 24, 24], 6
    rng = np.random.default_rng(5)
    positions = rng.integers(0, 256, size=(3, t)).astype(np.int64)
    q = rng.standard_normal((t, 2, d)).astype(np.float32)
    k = rng.standard_normal((t, 1, d)).astype(np.float32)
    row = megatron_mrope.ROWS[0]
    kernel = proxy.FrameworkKernel("megatron_mrope", row, PYTHON)
    try:
        rope = SimpleNamespace(head_dim=d, rotary_dim=d, layout="half_split", direction="forward", scheme="default",
                               dtype="f32", seq_len=0, config={}, hf_config={"rope_theta": 10000.0, "head_dim": d},
                               num_axes=3, axis_assignment="sections", axis_frequencies="shared",
                               axis_sections=sections, pair_axis=[])
        got, _ = kernel(q, k, positions, rope)
    finally:
        kernel.close()
    inv_freq = 10000.0 ** (-np.arange(0, d, 2, dtype=np.float64) / d)
    axis = np.repeat(np.arange(3), sections)  # pair i's axis
    expected = rotate_pairs_f64(q, positions[axis].T, inv_freq)
    first_axis_only = rotate_pairs_f64(q, positions[np.zeros_like(axis)].T, inv_freq)
    # positions below 256 in fp32 angles: |error| a few 1e-4 at |x| <= 5
    assert np.abs(got - expected).max() < 1e-3
    assert np.abs(got - first_axis_only).max() > 0.5


def rotate_pairs_f64(x, pair_positions, inv_freq):
    """Half-split rotation of x [tokens, heads, d], pair i of token t by pair_positions[t, i] x inv_freq[i]."""
    d = x.shape[-1]
    a = pair_positions.astype(np.float64)[:, None, :] * inv_freq[None, None, :]
    x = x.astype(np.float64)
    x1, x2 = x[..., : d // 2], x[..., d // 2:]
    return np.concatenate([x1 * np.cos(a) - x2 * np.sin(a), x2 * np.cos(a) + x1 * np.sin(a)], axis=-1)


def test_megatron_mrope_interleaved_raises_on_every_call():
    # M2: rotary_interleaved=True, the row's own adapter; one to six tokens, text tokens (one axis for all) and
    # three distinct axes. Each call must raise Megatron's RuntimeError from the embedding's views
    # (rotary_pos_embedding.py:340-344); a fixed Megatron returns instead and this test fails, naming the call.
    d, sections = 16, [2, 3, 3]
    rng = np.random.default_rng(7)
    row = next(r for r in megatron_mrope.ROWS if r["id"] == "megatron_mrope_interleaved")
    kernel = proxy.FrameworkKernel("megatron_mrope", row, PYTHON)
    raised = []
    try:
        for t in range(1, 7):
            for num_axes in (0, 3):
                positions = rng.integers(0, 64, size=(max(num_axes, 1), t)).astype(np.int64)
                q = rng.standard_normal((t, 2, d)).astype(np.float32)
                k = rng.standard_normal((t, 1, d)).astype(np.float32)
                rope = SimpleNamespace(head_dim=d, rotary_dim=d, layout="interleaved", direction="forward",
                                       scheme="default", dtype="f32", seq_len=0, config={},
                                       hf_config={"rope_theta": 10000.0, "head_dim": d}, num_axes=num_axes,
                                       axis_assignment="sections" if num_axes else "none",
                                       axis_frequencies="shared", axis_sections=sections if num_axes else [],
                                       pair_axis=[])
                with pytest.raises(proxy.WorkerError, match="RuntimeError") as err:
                    kernel(q, k, positions if num_axes else positions[0], rope)
                assert "rotary_pos_embedding.py" in str(err.value), str(err.value)[-600:]
                raised.append((t, num_axes))
    finally:
        kernel.close()
    assert len(raised) == 12
