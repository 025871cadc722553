# SPDX-License-Identifier: MIT
"""What a Python kernel declares beyond layouts, dtypes and schemes: a maximum
position (a cos/sin cache of that many rows, vLLM's) and which multi-axis
forms it takes. Cases outside are skipped and counted by reason; the cases
kept are judged as any."""
import numpy as np
import pytest

import ropecheck
from hf_rope_numpy import hf_rope

ONE_FAMILY = dict(schemes=["default"], layouts=["half_split", "interleaved"], dtypes=["f32", "f16", "bf16"])


def cache_kernel(max_position):
    """hf_rope that, as a cos/sin cache of max_position rows would, cannot take a larger position."""

    def cached(q, k, positions, rope):
        if positions.size and np.abs(positions).max() >= max_position:
            raise IndexError(f"position {np.abs(positions).max()} beyond the cache's {max_position} rows")
        return hf_rope(q, k, positions, rope)

    return cached


def skipped_for(result, reason):
    line = next((ln for ln in result.tables.splitlines() if reason in ln), None)
    return int(line.rstrip(" |").rsplit("|", 1)[1]) if line else 0


EVERY_FAMILY = dict(layouts=["half_split", "interleaved"], dtypes=["f32", "f16", "bf16"])
ROWS = 1 << 16


def test_a_declared_max_position_redraws_the_positions_beyond_it():
    undeclared = ropecheck.check(cache_kernel(ROWS), **EVERY_FAMILY)
    assert not undeclared.passed  # positions past the cache: the kernel raised
    assert any("IndexError" in e for e in undeclared.errors)
    # Without a redraw the cases past the bound are skipped, named ...
    kept = ropecheck.check(cache_kernel(ROWS), max_position=ROWS, redraw=False, **EVERY_FAMILY)
    assert kept.passed, kept.failure_report() + kept.tables
    assert skipped_for(kept, f"positions at or beyond max_position {ROWS}") > 0, kept.tables
    # ... with it (the default) their ids past it are redrawn below it and judged (issue #48).
    r = ropecheck.check(cache_kernel(ROWS), max_position=ROWS, **EVERY_FAMILY)
    assert r.passed, r.failure_report() + r.tables
    assert skipped_for(r, f"positions at or beyond max_position {ROWS}") == 0, r.tables
    assert skipped_for(r, "redrawn (judged)") > 0, r.tables
    # the cases below the bound are judged: each family the undeclared run passed somewhere passes as often
    for name, fam in undeclared.families.items():
        assert r.families[name]["passed"] >= fam["passed"], (name, r.tables)


def test_a_bug_below_the_max_position_still_fails():
    def wrong_below(q, k, positions, rope):
        q2, k2 = cache_kernel(ROWS)(q, k, positions, rope)
        return q2 * np.asarray(1.001, dtype=q2.dtype), k2

    r = ropecheck.check(wrong_below, max_position=ROWS, **ONE_FAMILY)
    assert not r.passed
    assert {f.property for f in r.failures} >= {"ConformsToReference"}


@pytest.mark.parametrize("bad", [0, -5, 2.5, True])
def test_a_bad_max_position_names_the_option(bad):
    with pytest.raises(ValueError, match="max_position"):
        ropecheck.check(hf_rope, max_position=bad, **ONE_FAMILY)


def test_multi_axis_forms_are_declared_one_by_one():
    seen = {}

    def sections_only(q, k, positions, rope):
        seen.setdefault(rope.axis_assignment or "1d", 0)
        seen[rope.axis_assignment or "1d"] += 1
        return q, k  # never judged as right: only which calls arrive matters here

    ropecheck.check(sections_only, multi_axis=["sections"], properties=["ConformsToReference"], **EVERY_FAMILY)
    assert "sections" in seen and not ({"interleaved", "table"} & set(seen)), seen
    with pytest.raises(ValueError, match="multi_axis: unknown form 'diagonal'"):
        ropecheck.check(hf_rope, multi_axis=["diagonal"], **ONE_FAMILY)
    with pytest.raises(ValueError, match="per_axis needs an assignment"):
        ropecheck.check(hf_rope, multi_axis=["per_axis"], **ONE_FAMILY)
    assert set(ropecheck.MULTI_AXIS_FORMS) == {"sections", "interleaved", "table", "per_axis"}


def test_restrictions_skip_the_scheme_parameters_a_kernel_declines():
    def always_truncated(q, k, positions, rope):
        hf = dict(rope.hf_config or {})  # None for explicit frequencies
        scaling = dict(hf.get("rope_scaling") or {})
        if scaling.get("rope_type") == "yarn" and scaling.get("truncate") is False:
            raise NotImplementedError("this kernel floors and ceils YaRN's correction range always")
        return hf_rope(q, k, positions, rope)

    undeclared = ropecheck.check(always_truncated, **EVERY_FAMILY)
    assert {f.family for f in undeclared.failures} == {"yarn"}, undeclared.failure_report()
    r = ropecheck.check(always_truncated, restrictions=["yarn_truncated_only"], **EVERY_FAMILY)
    assert r.passed, r.failure_report()
    assert r.families["yarn"]["passed"] > 0, r.tables
    assert skipped_for(r, "freq.truncate: 0 (the kernel declares YARN_TRUNCATED_ONLY)") > 0, r.tables
    with pytest.raises(ValueError, match="restrictions: unknown restriction 'fast'"):
        ropecheck.check(hf_rope, restrictions=["fast"], **ONE_FAMILY)


def test_a_kernel_declaring_one_dtype_and_layout_gets_the_suites_full_count():
    # The suite draws half_split bf16 on about an eighth of its cases; the
    # others are redrawn within the declaration (#34), not skipped.
    r = ropecheck.check(hf_rope, dtypes=["bf16"], layouts=["half_split"], policy="f32_angle_product", cases=40,
                        properties=["ConformsToReference"])
    assert r.passed, r.failure_report() + r.tables
    judged = sum(f["passed"] for f in r.families.values())
    assert judged >= 35, r.tables  # the two multi-axis cases of the first 40 are outside it
    assert r.redrawn >= 25, r.tables
    assert "redrawn (judged)" in r.tables
    # Without the redraw the same declaration is judged on the suite's own
    # half_split bf16 cases only.
    few = ropecheck.check(hf_rope, dtypes=["bf16"], layouts=["half_split"], policy="f32_angle_product", cases=40,
                          properties=["ConformsToReference"], redraw=False)
    assert few.redrawn == 0 and sum(f["passed"] for f in few.families.values()) < judged / 3, few.tables


def test_a_verdict_failed_on_the_floor_says_why_in_the_failure_report():
    # Positions 1 and beyond are outside a one-row cache: nothing is judged,
    # nothing fails, and the verdict is still FAIL, with the reason.
    r = ropecheck.check(cache_kernel(1), max_position=1, redraw=False, cases=8, properties=["ConformsToReference"])
    assert not r.passed and not r.failures, r.tables
    assert r.under_floor and r.under_floor[0][0] == "ConformsToReference", r.under_floor
    report = r.failure_report()
    assert "FAIL ConformsToReference: judged on 0 case(s)" in report, report
    assert "positions at or beyond max_position 1" in report, report
