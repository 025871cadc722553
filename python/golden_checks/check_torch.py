#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs real framework code, PyTorch's, on ropecheck golden inputs and judges
it under the precision policy that describes it.

    python3 check_torch.py DIR [--variant correct|swap-layout|cos-sin-bf16|f32-math-policy]

The forms, as the seeds write them:
- Hugging Face transformers (modeling_llama): inv_freq in fp32, cos/sin of
  inv_freq @ position_ids.float(), times attention_scaling, cast to q.dtype,
  then q * cos + rotate_half(q) * sin in q.dtype (half_split cases), and the
  GPT-J form with repeat_interleave(cos) and rotate_every_two (interleaved).
  Policy hf_eager: every op rounded to the activation dtype.
- Meta's llama reference (also Mistral's): freqs_cis = torch.polar(ones,
  outer(t, inv_freq)), view_as_complex(xq.float()) * freqs_cis, cast back
  (interleaved cases, fp32/bf16/fp16). Policy f32_angle_product.
Frequencies: the closed form in torch for the default and linear schemes
(HF's own expression), the export's exact inv_freq cast to fp32 otherwise
(one rounding, inside the frequency term E1).

Multi-axis cases (M-RoPE, axial RoPE: the case's axes) are skipped, each
with its reason: these forms take one position per token, and the
frameworks' multi-axis code is another form (numpy_rope.py covers them).
So are cases with a qk-norm or the caller's cos/sin cache (schema 5): these
forms neither normalise nor read a cache.

--variant correct (default) must pass every case. swap-layout runs the other
layout's code and must fail exactly the cases not flagged LayoutDegenerate;
cos-sin-bf16 casts HF's cos/sin to bf16 in fp32 cases, judged under the fp32
policy, and must fail every one with a non-zero position; f32-math-policy
judges HF in bf16/fp16 under f32_math_storage_cos_sin (its cos/sin dtype
declared, its arithmetic declared fp32) and must fail at least half of them. Exit 0 when the
variant behaves so, 1 otherwise, 77 when torch cannot be imported (ctest
shows the test as skipped, never passed).
"""
import argparse
import os
import sys

import numpy as np

try:
    import torch
except ImportError as e:  # a machine without python3-torch: skip, visibly
    print(f"SKIP: torch cannot be imported ({e})")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ropecheck.golden as rg  # noqa: E402  (PYTHONPATH=build/release/python)

TORCH_DTYPES = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16, "f64": torch.float64}


def to_torch(array, dtype):
    if dtype == "bf16":  # bit patterns
        return torch.from_numpy(array.astype(np.uint16).view(np.int16).copy()).view(torch.bfloat16)
    return torch.from_numpy(np.array(array, copy=True)).to(TORCH_DTYPES[dtype])


def inv_freq_fp32(case):
    c = case.config
    if c["scheme"] in ("default", "linear"):
        dim = c["rotary_dim"]
        inv_freq = 1.0 / (c["base"] ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
        return inv_freq / c["factor"] if c["scheme"] == "linear" else inv_freq
    return torch.from_numpy(np.array(case.tensor("inv_freq"), copy=True)).float()


# --- Hugging Face transformers -----------------------------------------------------------------
def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def rotate_every_two(x):
    x1, x2 = x[..., ::2], x[..., 1::2]
    return torch.stack((-x2, x1), dim=-1).flatten(-2)


def hf_rope(q, positions, inv_freq, scaling, inverse, interleaved, cos_sin_dtype=None):
    inv_freq_expanded = inv_freq[None, :, None].float()
    position_ids_expanded = positions[None, None, :].float()
    freqs = (inv_freq_expanded.float() @ position_ids_expanded.float()).transpose(1, 2)[0]  # [T, d/2]
    emb = freqs.repeat_interleave(2, dim=-1) if interleaved else torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos() * scaling, emb.sin() * scaling
    if inverse:
        sin = -sin
    if cos_sin_dtype is not None:  # the deliberate bug: cos/sin through another dtype
        cos, sin = cos.to(cos_sin_dtype), sin.to(cos_sin_dtype)
    cos, sin = cos.to(q.dtype)[:, None, :], sin.to(q.dtype)[:, None, :]
    rot = rotate_every_two(q) if interleaved else rotate_half(q)
    return (q * cos) + (rot * sin)


# --- Meta llama / Mistral ----------------------------------------------------------------------
def meta_rope(xq, positions, inv_freq, scaling, inverse):
    t = positions.float()
    freqs = torch.outer(t, inv_freq).float()
    freqs_cis = torch.polar(torch.full_like(freqs, scaling), freqs)  # complex64
    if inverse:
        freqs_cis = freqs_cis.conj()
    xq_ = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    xq_out = torch.view_as_real(xq_ * freqs_cis[:, None, :]).flatten(-2)
    return xq_out.type_as(xq)


def runs(case, variant):
    """(form name, policy, function of (x, rotary slice) -> rotated slice) for each form run on the case."""
    interleaved = case.layout == "interleaved"
    if variant == "swap-layout":
        interleaved = not interleaved
    out = []
    if variant == "f32-math-policy":
        if case.dtype in ("bf16", "f16"):
            out.append(("hf", "f32_math_storage_cos_sin",
                        lambda x, p, w, m: hf_rope(x, p, w, m, case.inverse, interleaved)))
        return out
    cos_sin = torch.bfloat16 if variant == "cos-sin-bf16" else None
    if variant != "cos-sin-bf16" or case.dtype == "f32":
        out.append(("hf", "hf_eager" if cos_sin is None else "f32_angle_product",
                    lambda x, p, w, m: hf_rope(x, p, w, m, case.inverse, interleaved, cos_sin)))
    if interleaved and case.dtype != "f64" and variant != "cos-sin-bf16":
        out.append(("meta", "f32_angle_product", lambda x, p, w, m: meta_rope(x, p, w, m, case.inverse)))
    return out


def check_case(case, variant):
    positions = torch.from_numpy(case.raw("positions").astype(np.int64))
    inv_freq = inv_freq_fp32(case)
    r = case.rotary_dim
    problems, worst = [], 0.0
    for form, policy, fn in runs(case, variant):
        for which in ("q", "k"):
            x = to_torch(case.raw(which), case.dtype)
            got = torch.cat((fn(x[..., :r], positions, inv_freq, case.attention_factor), x[..., r:]), dim=-1)
            got = got.double().numpy()
            expected, budget = case.tensor(f"{which}_expected_f64"), case.budget(which, policy)
            err = np.abs(got[..., :r] - expected[..., :r])
            bad = ~(err <= budget[..., :r])
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                worst = max(worst, float(np.max(np.where(bad, np.inf, err / budget[..., :r]), initial=0.0)))
            if bad.any():
                t, h, c = np.argwhere(bad)[0]
                problems.append(f"{form} {which}[{t},{h},{c}] = {got[t, h, c]!r}, exact {expected[t, h, c]!r}, "
                                f"{policy} budget {budget[t, h, c]:.3g} ({int(bad.sum())} elements over)")
            if not np.array_equal(got[..., r:], case.tensor(which)[..., r:]):
                problems.append(f"{form} {which}: pass-through channels changed")
    return problems, worst


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--variant", default="correct",
                    choices=["correct", "swap-layout", "cos-sin-bf16", "f32-math-policy"])
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args()
    torch.set_num_threads(1)
    try:
        export = rg.load(a.dir)
        failed, should_fail, judged, worst, skipped = set(), set(), 0, 0.0, 0
        for case in export.cases:
            if "qkNorm" in case.entry or "cosSinCache" in case.entry:
                skipped += 1
                if not a.quiet:
                    print(f"SKIP case {case.id} {case.name}: a qk-norm or the caller's cos/sin cache (schema 5): the "
                          f"HF and Meta forms here rotate the inputs as given with their own sin/cos")
                continue
            if case.axes:
                skipped += 1
                if not a.quiet:
                    print(f"SKIP case {case.id} {case.name}: multi-axis positions ({case.num_axes} axes, "
                          f"{case.axes['assignment']}): the HF and Meta forms here take one position per token")
                continue
            problems, w = check_case(case, a.variant)
            if not runs(case, a.variant):
                continue
            judged += 1
            worst = max(worst, w)
            nonzero = bool(np.any(case.raw("positions") != 0))
            if (a.variant == "swap-layout" and "LayoutDegenerate" not in case.flags) or \
                    (a.variant == "cos-sin-bf16" and nonzero):
                should_fail.add(case.id)
            if problems:
                failed.add(case.id)
                if not a.quiet or a.variant == "correct":
                    print(f"FAIL case {case.id} {case.name} ({case.dtype}): {problems[0]}")
    except rg.GoldenError as e:
        sys.exit(f"error: {e}")
    print(f"{a.dir}: torch {torch.__version__}, variant {a.variant}: {judged} cases judged, {len(failed)} failed, "
          f"{skipped} skipped (multi-axis, a qk-norm, the caller's cos/sin cache); worst error {worst:.3f} of its budget")
    if a.variant == "f32-math-policy":
        print(f"HF eager in bf16/fp16 under an fp32-math policy: {len(failed)} of {judged} cases fail")
        return 0 if 2 * len(failed) >= judged > 0 else 1
    missed, extra = sorted(should_fail - failed), sorted(failed - should_fail)
    if missed or extra:
        print(f"expected to fail but passed: {missed}; failed but should not: {extra}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
