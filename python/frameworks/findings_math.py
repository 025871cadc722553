# SPDX-License-Identifier: MIT
"""What the findings' expected-failure tests share: the rotation in float64 (the
mathematics, not an implementation under test) and one half-split call of a
framework kernel on seeded q and k with an HF config."""
from types import SimpleNamespace

import numpy as np


def rotate_f64(x, positions, inv_freq):
    """Half-split rotation of x [tokens, heads, d] by positions x inv_freq, in float64."""
    d = x.shape[-1]
    a = positions.astype(np.float64)[:, None, None] * inv_freq[None, None, :]
    x = x.astype(np.float64)
    x1, x2 = x[..., : d // 2], x[..., d // 2:]
    return np.concatenate([x1 * np.cos(a) - x2 * np.sin(a), x2 * np.cos(a) + x1 * np.sin(a)], axis=-1)


def call(kernel, hf_config, positions, d, seq_len=0):
    """(q, q_out) of one fp32 half-split call, q [tokens, 2, d] and k [tokens, 1, d] drawn from seed 3."""
    rng = np.random.default_rng(3)
    q = rng.standard_normal((positions.size, 2, d)).astype(np.float32)
    k = rng.standard_normal((positions.size, 1, d)).astype(np.float32)
    rope = SimpleNamespace(head_dim=d, rotary_dim=d, layout="half_split", direction="forward", scheme="", dtype="f32",
                           seq_len=seq_len, config={}, hf_config=dict(hf_config, head_dim=d))
    q_out, _ = kernel(q, k, positions, rope)
    return q, q_out
