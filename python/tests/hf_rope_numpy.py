# SPDX-License-Identifier: MIT
"""A NumPy port of Hugging Face transformers' RoPE (modeling_rope_utils.py
inverse frequencies and attention scaling, modeling_llama.py
apply_rotary_pos_emb): fp32 inv_freq, angle = fp32(position) * inv_freq in
fp32, cos/sin in fp32 times the attention factor, rotation in fp32: the
arithmetic ropecheck's "f32_angle_product" policy declares. Written from the
formulas (docs/FREQUENCY_SCHEMES.md), reading the call's config.

`llama3_band_edge_bug=True` plants the bug class of transformers PR #32330's
neighbourhood: the medium band's upper edge compared with <= on the wrong
side, so wavelengths exactly between the edges are scaled as low-frequency.
"""
import math

import numpy as np

f32 = np.float32


def inv_freq_and_scale(rope, llama3_band_edge_bug=False):
    c = rope.config
    d = rope.rotary_dim
    scheme = rope.scheme
    base = float(c.get("base", 10000.0))
    exps = np.arange(0, d, 2, dtype=np.int64).astype(f32) / f32(d)
    if scheme == "explicit":
        return np.asarray(c["inv_freq"], dtype=np.float64).astype(f32), 1.0
    if scheme == "ntk":
        base = base * c["factor"] ** (d / (d - 2))
    if scheme == "dynamic_ntk":
        L = c["original_max_position"]
        n = max(c.get("seq_len", 0), L)
        base = base * ((c["factor"] * n / L) - (c["factor"] - 1)) ** (d / (d - 2))
    inv = (f32(1.0) / (f32(base) ** exps)).astype(f32)
    m = 1.0
    if scheme == "linear":
        inv = (inv / f32(c["factor"])).astype(f32)
    elif scheme == "yarn":
        s = c["factor"]
        L = c["original_max_position"]

        def corr(r):
            return (d * math.log(L / (r * 2 * math.pi))) / (2 * math.log(base))

        low, high = corr(c["beta_fast"]), corr(c["beta_slow"])
        if c.get("truncate", True):
            low, high = math.floor(low), math.ceil(high)
        low, high = max(low, 0), min(high, d - 1)
        if low == high:
            high += 0.001
        ramp = np.clip((np.arange(d // 2, dtype=f32) - f32(low)) / f32(high - low), 0, 1).astype(f32)
        extrapolation = f32(1) - ramp
        inv = ((inv / f32(s)) * (f32(1) - extrapolation) + inv * extrapolation).astype(f32)

        def g(scale, mscale=1.0):
            return 1.0 if scale <= 1 else 0.1 * mscale * math.log(scale) + 1.0

        if "attention_factor" in c:
            m = c["attention_factor"]
        elif c.get("mscale", 0) and c.get("mscale_all_dim", 0):
            m = g(s, c["mscale"]) / g(s, c["mscale_all_dim"])
        else:
            m = g(s)
    elif scheme == "llama3":
        s, lf, hf = c["factor"], c["low_freq_factor"], c["high_freq_factor"]
        L = c["original_max_position"]
        wavelen = f32(2 * math.pi) / inv
        low_wavelen, high_wavelen = L / lf, L / hf
        out = np.where(wavelen > low_wavelen, inv / f32(s), inv)
        # Equal factors (Llama 4 Scout): no blend band, nothing to smooth.
        smooth = (L / wavelen - lf) / (hf - lf) if hf > lf else np.zeros_like(wavelen)
        smoothed = (1 - smooth) * out / s + smooth * out
        if llama3_band_edge_bug:
            medium = (wavelen <= low_wavelen) & (wavelen > high_wavelen * 1.05)
        else:
            medium = (wavelen <= low_wavelen) & (wavelen >= high_wavelen)
        inv = np.where(medium, smoothed, out).astype(f32)
    elif scheme == "longrope":
        ext = c["long_factor"] if c.get("seq_len", 0) > c["original_max_position"] else c["short_factor"]
        inv = (f32(1.0) / (np.asarray(ext, dtype=f32) * (f32(base) ** exps))).astype(f32)
        if "attention_factor" in c:
            m = c["attention_factor"]
        else:
            s = c["factor"]
            m = 1.0 if s <= 1 else math.sqrt(1 + math.log(s) / math.log(c["original_max_position"]))
    if scheme != "yarn" and scheme != "longrope" and "attention_factor" in c:
        m = c["attention_factor"]
    return inv, m


def rotate_half(x, layout):
    if layout == "half_split":
        h = x.shape[-1] // 2
        return np.concatenate([-x[..., h:], x[..., :h]], axis=-1)
    out = np.empty_like(x)
    out[..., 0::2] = -x[..., 1::2]
    out[..., 1::2] = x[..., 0::2]
    return out


def hf_rope(q, k, positions, rope, llama3_band_edge_bug=False):
    """fn(q, k, positions, rope) -> (q_out, k_out) in numpy, HF's arithmetic."""
    d = rope.rotary_dim
    inv, m = inv_freq_and_scale(rope, llama3_band_edge_bug)
    ang = positions.astype(f32)[:, None] * inv[None, :]  # fp32 product
    if rope.layout == "half_split":
        emb = np.concatenate([ang, ang], axis=-1)
    else:
        emb = np.repeat(ang, 2, axis=-1)
    # cos/sin evaluated in float64 and rounded to fp32: within the 1 ulp the
    # policy declares for libm (numpy's own float32 sin/cos promise less).
    cos = (np.cos(emb.astype(np.float64)).astype(f32) * f32(m)).astype(f32)
    sin = (np.sin(emb.astype(np.float64)).astype(f32) * f32(m)).astype(f32)
    if rope.direction == "inverse":
        sin = -sin

    def apply(x):
        xf = x.astype(f32)
        xr = xf[..., :d]
        out = xr * cos[:, None, :] + rotate_half(xr, rope.layout) * sin[:, None, :]
        res = np.concatenate([out, xf[..., d:]], axis=-1)
        return res.astype(x.dtype)

    return apply(q), apply(k)
