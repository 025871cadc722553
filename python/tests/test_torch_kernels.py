# SPDX-License-Identifier: MIT
"""Real PyTorch code under the gate, in the two forms RoPE is written in:
Hugging Face's rotate_half (modeling_llama.py apply_rotary_pos_emb) and the
Meta/Mistral complex form (view_as_complex times torch.polar). Both pass in
fp32 under the policy that describes them; the same code pairing the other
layout fails conformance. Skipped, visibly, where torch is not installed."""
import math

import pytest

import ropecheck

torch = pytest.importorskip("torch")


def hf_inv_freq(rope):
    # modeling_rope_utils default: 1 / base^(arange(0, d, 2) / d) in fp32.
    d = rope.rotary_dim
    base = rope.hf_config["rope_theta"]
    return 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.int64).float() / d))


def hf_rotate_half(q, k, positions, rope, pair_other_layout=False):
    d = rope.rotary_dim
    layout = rope.layout
    if pair_other_layout:
        layout = "interleaved" if layout == "half_split" else "half_split"
    freqs = positions.float()[:, None] * hf_inv_freq(rope)[None, :]
    emb = torch.cat((freqs, freqs), dim=-1) if layout == "half_split" else freqs.repeat_interleave(2, dim=-1)
    cos, sin = emb.cos()[:, None, :], emb.sin()[:, None, :]

    def rotate_half(x):
        if layout == "half_split":
            x1, x2 = x[..., : d // 2], x[..., d // 2:]
            return torch.cat((-x2, x1), dim=-1)
        return torch.stack((-x[..., 1::2], x[..., 0::2]), dim=-1).flatten(-2)

    def apply(x):
        xr = x[..., :d].float()
        out = xr * cos + rotate_half(xr) * sin
        return torch.cat((out, x[..., d:].float()), dim=-1).to(x.dtype)

    return apply(q), apply(k)


def meta_complex(q, k, positions, rope):
    # Meta's llama / Mistral reference: freqs_cis = polar(1, t * freqs) in fp32,
    # x viewed as complex pairs (x[2i], x[2i+1]), multiplied, viewed back.
    d = rope.rotary_dim
    freqs = torch.outer(positions.float(), hf_inv_freq(rope))
    freqs_cis = torch.polar(torch.ones_like(freqs), freqs)[:, None, :]

    def apply(x):
        xr = x[..., :d].float().reshape(*x.shape[:-1], d // 2, 2)
        out = torch.view_as_real(torch.view_as_complex(xr.contiguous()) * freqs_cis).flatten(-2)
        return torch.cat((out, x[..., d:].float()), dim=-1).to(x.dtype)

    return apply(q), apply(k)


def test_hf_rotate_half_fp32_passes_both_layouts():
    r = ropecheck.check(hf_rotate_half, tensors="torch", layouts=["half_split", "interleaved"], dtypes=["f32"],
                        schemes=["default"], policy="f32_angle_product", negative_positions=True)
    assert r.passed, r.failure_report()
    assert r.families["default"]["passed"] > 0, r.tables


def test_meta_complex_fp32_passes():
    r = ropecheck.check(meta_complex, tensors="torch", layouts=["interleaved"], dtypes=["f32"], schemes=["default"],
                        policy="f32_angle_product", negative_positions=True)
    assert r.passed, r.failure_report()
    assert r.families["default"]["passed"] > 0, r.tables


def test_layout_swapped_fails_conformance():
    def swapped(q, k, positions, rope):
        return hf_rotate_half(q, k, positions, rope, pair_other_layout=True)

    r = ropecheck.check(swapped, tensors="torch", layouts=["half_split"], dtypes=["f32"], schemes=["default"],
                        policy="f32_angle_product")
    assert not r.passed
    assert {f.property for f in r.failures} >= {"ConformsToReference"}, r.failure_report()
