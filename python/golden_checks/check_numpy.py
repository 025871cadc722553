#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks the numpy RoPE implementations against ropecheck golden vectors.

    python3 check_numpy.py DIR [--policy exact_f64] [--swap-layout] [--expect-layout-failures]

Multi-axis cases (positions [num_axes, tokens], pair_axis [pairs]) rotate
pair i at positions[pair_axis[i], t]; everything else is the same. Cases
with a qk-norm or the caller's cos/sin cache (schema 5) are skipped, each
named: these forms neither normalise nor read a cache.
Each case runs the form that matches its layout (rotate_half for half_split,
the complex form for interleaved) in the arithmetic of the policy (float64
for exact_f64, the default; fp32 angles and rotation for f32_angle_product;
everything in the activation dtype for hf_eager: numpy_rope.py), rounds the
result to the case dtype, and requires per element |result - expected_f64|
<= the policy's budget and pass-through channels identical to the input. --swap-layout runs the other
form: the deliberate layout bug. With --expect-layout-failures the exit code
says whether the failing cases are exactly those not flagged
LayoutDegenerate (where the two layouts differ), no more and no fewer.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy_rope as nr  # noqa: E402
import ropecheck.golden as rg  # noqa: E402  (PYTHONPATH=build/release/python)


def check_case(case, policy, swap, arithmetic):
    positions = case.raw("positions")  # [tokens], or [num_axes, tokens] for a multi-axis case
    pair_axis = case.raw("pair_axis") if case.axes else None
    inv_freq = case.tensor("inv_freq")
    problems = []
    closed = nr.default_inv_freq(case.config, case.axes, pair_axis)
    if closed is not None:  # our own frequencies where the formula is one line
        rel = np.max(np.abs(closed - inv_freq) / np.maximum(inv_freq, 1e-300), initial=0.0)
        if rel > 1e-13:
            problems.append(f"inv_freq differs from the closed form by {rel:.3g} relative")
    half = case.layout == "half_split"
    form = nr.rope_rotate_half if half != swap else nr.rope_complex
    worst, exact, total = 0.0, 0, 0
    for which in ("q", "k"):
        x = case.tensor(which)
        got = nr.round_to(form(x, positions, inv_freq, case.attention_factor, case.inverse, arithmetic, case.dtype,
                               pair_axis), case.dtype)
        expected = case.tensor(f"{which}_expected_f64")
        budget = case.budget(which, policy)
        r = case.rotary_dim
        err = np.abs(got[..., :r] - expected[..., :r])
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            ratio = err / np.where(budget[..., :r] > 0, budget[..., :r], np.inf)
        bad = ~(err <= budget[..., :r])
        if bad.any():
            t, h, c = np.argwhere(bad)[0]
            problems.append(f"{which}[{t},{h},{c}] = {got[t, h, c]!r}, exact {expected[t, h, c]!r}, "
                            f"budget {budget[t, h, c]:.3g} ({int(bad.sum())} elements over budget)")
        passthrough = got[..., r:], x[..., r:]
        if not (np.array_equal(*passthrough) and np.array_equal(*(np.signbit(a) for a in passthrough))):
            problems.append(f"{which}: pass-through channels changed")
        worst = max(worst, float(np.max(ratio, initial=0.0)))
        exact += int(np.sum(got[..., :r] == case.tensor(f"{which}_expected")[..., :r]))
        total += err.size
    return problems, worst, exact, total


def fused_input(case):
    """Why this consumer cannot compute the case (schema 5), or "" when it can."""
    if "qkNorm" in case.entry:
        return "a qk-norm before the rotation (this consumer rotates the inputs as given)"
    if "cosSinCache" in case.entry:
        return ("the caller's cos/sin cache (its budgets are a reader's of the cache; this consumer computes its own "
                "sin/cos)")
    return ""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--policy", default="exact_f64")
    ap.add_argument("--swap-layout", action="store_true", help="use the wrong form for every case")
    ap.add_argument("--expect-layout-failures", action="store_true")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args()
    try:
        export = rg.load(a.dir)
        if a.policy not in export.policies:
            sys.exit(f"--policy: {a.policy} is not in this export ({', '.join(export.policies)})")
        arithmetic = export.manifest["policies"][a.policy]
        if not nr.emulates(arithmetic):
            sys.exit(f"--policy: {a.policy} fuses a multiply-add, which numpy cannot compute; judge your own "
                     f"kernel against its {a.policy} budgets (golden/README.md)")
        failed, should_fail = set(), set()
        n, multi, exact, total, worst, skipped = 0, 0, 0, 0, 0.0, 0
        for case in export.cases:
            if fused_input(case):
                skipped += 1
                if not a.quiet:
                    print(f"SKIP case {case.id} {case.name}: {fused_input(case)}")
                continue
            n += 1
            multi += bool(case.axes)
            problems, w, e, t = check_case(case, a.policy, a.swap_layout, arithmetic)
            exact, total, worst = exact + e, total + t, max(worst, w)
            if "LayoutDegenerate" not in case.flags:
                should_fail.add(case.id)
            if problems:
                failed.add(case.id)
                if not a.quiet:
                    print(f"FAIL case {case.id} {case.name}: {problems[0]}")
    except rg.GoldenError as e:
        sys.exit(f"error: {e}")
    skips = f" and {skipped} skipped (a qk-norm or the caller's cos/sin cache)" if skipped else ""
    print(f"{a.dir}: {n} cases ({multi} multi-axis){skips}, {len(failed)} failed; worst error {worst:.3f} of the "
          f"{a.policy} budget; "
          f"{exact}/{total} rotated elements equal to the correctly rounded result")
    if a.expect_layout_failures:
        missed, extra = sorted(should_fail - failed), sorted(failed - should_fail)
        if missed or extra:
            print(f"layout check: cases that should fail but pass: {missed}; fail but should not: {extra}")
            return 1
        print(f"layout check: the swapped layout fails exactly the {len(failed)} cases where layouts differ")
        return 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
