# SPDX-License-Identifier: MIT
"""ropecheck.reference and ropecheck.config_from_hf against mathematics and
published configs."""
import math

import numpy as np
import pytest

import ropecheck

LLAMA31 = {"hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8, "max_position_embeddings": 131072,
           "rope_theta": 500000.0, "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                                    "original_max_position_embeddings": 8192, "rope_type": "llama3"}}


def test_config_from_hf_reads_a_published_config():
    c = ropecheck.config_from_hf(LLAMA31)  # meta-llama/Llama-3.1-8B config.json
    assert (c.head_dim, c.rotary_dim, c.scheme) == (128, 128, "llama3")
    again = ropecheck.config_from_hf(c.to_hf_json())
    assert again.describe() == c.describe()


def test_config_errors_name_the_field():
    with pytest.raises(ValueError, match="rope_scaling.factor"):
        ropecheck.config_from_hf({"head_dim": 64, "rope_scaling": {"rope_type": "linear", "factor": "x"}})


def test_reference_is_the_rotation():
    c = ropecheck.config_from_hf({"head_dim": 4, "rope_theta": 10000.0})
    q = np.array([[[1.0, 0.0, 0.5, 0.25]]], dtype=np.float64)
    k = q.copy()
    r = ropecheck.reference(q, k, np.array([1]), c, layout="half_split", policy="exact_f64")
    # Half split pairs (x0, x2), (x1, x3); w_0 = 1, w_1 = 1e4^(-1/2) = 0.01.
    w = [1.0, 0.01]
    x, y = [1.0, 0.0], [0.5, 0.25]
    for i in range(2):
        a = w[i]
        assert r["q_f64"][0, 0, i] == pytest.approx(x[i] * math.cos(a) - y[i] * math.sin(a), rel=1e-15, abs=1e-16)
        assert r["q_f64"][0, 0, i + 2] == pytest.approx(x[i] * math.sin(a) + y[i] * math.cos(a), rel=1e-15, abs=1e-16)
    assert r["q"].dtype == np.float64 and r["attention_factor"] == 1.0
    assert np.all(r["q_budget"] > 0)
    # At position 0 the rotation is the identity, exactly.
    r0 = ropecheck.reference(q.astype(np.float32), k.astype(np.float32), np.array([0]), c, layout="half_split")
    assert np.array_equal(r0["q"], q.astype(np.float32))


def test_reference_budget_accepts_float64_numpy_and_refuses_an_fp32_angle():
    c = ropecheck.config_from_hf({"head_dim": 64, "rope_theta": 10000.0})
    rng = np.random.default_rng(0)
    q = rng.standard_normal((3, 2, 64)).astype(np.float32)
    k = rng.standard_normal((3, 1, 64)).astype(np.float32)
    pos = np.array([5, 70000, 1 << 20])
    r = ropecheck.reference(q, k, pos, c, layout="half_split", policy="exact_f64")
    inv = 1.0 / 10000.0 ** (np.arange(0, 64, 2) / 64)
    ang = pos[:, None].astype(np.float64) * inv[None, :]
    x1, x2 = q[..., :32].astype(np.float64), q[..., 32:].astype(np.float64)
    c64, s64 = np.cos(ang)[:, None, :], np.sin(ang)[:, None, :]
    f64 = np.concatenate([x1 * c64 - x2 * s64, x1 * s64 + x2 * c64], axis=-1)
    assert np.all(np.abs(f64 - r["q_f64"]) <= r["q_budget"])
    # An fp32 angle at 2^20 is off by up to 2^-4 rad: far outside the float64 budget.
    ang32 = (pos[:, None].astype(np.float32) * inv[None, :].astype(np.float32)).astype(np.float64)
    c32, s32 = np.cos(ang32)[:, None, :], np.sin(ang32)[:, None, :]
    f32_angle = np.concatenate([x1 * c32 - x2 * s32, x1 * s32 + x2 * c32], axis=-1)
    assert np.any(np.abs(f32_angle - r["q_f64"]) > r["q_budget"])
