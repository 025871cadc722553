# SPDX-License-Identifier: MIT
"""A NumPy port of HF's RoPE passes the gate under the policy that describes
it; the same port with a Llama 3.1 band-edge bug fails, on that family only."""
import functools

import ropecheck
from hf_rope_numpy import hf_rope

OPTIONS = dict(layouts=["half_split", "interleaved"], dtypes=["f32", "f16", "bf16"], policy="f32_angle_product",
               inverse=True, negative_positions=True)


def test_hf_numpy_port_passes_every_family():
    r = ropecheck.check(hf_rope, **OPTIONS)
    assert r.passed, r.failure_report()
    # The multi-axis families are listed too, every case skipped: a Python
    # kernel takes one position per token.
    assert set(ropecheck.SCHEMES) <= set(r.families)
    assert all(r.families[f]["passed"] == 0 for f in set(r.families) - set(ropecheck.SCHEMES)), r.tables
    judged = sum(f["passed"] for f in r.families.values())
    assert judged >= 100, r.tables  # the quick suite's 120 cases, few outside the declaration


def test_llama31_band_edge_bug_fails_on_the_llama3_family_only():
    buggy = functools.partial(hf_rope, llama3_band_edge_bug=True)
    buggy.__name__ = "hf_rope_band_edge_bug"
    r = ropecheck.check(buggy, **OPTIONS)
    assert not r.passed
    assert r.families["llama3"]["failed"] > 0, r.tables
    failing_families = {f.family for f in r.failures}
    assert failing_families == {"llama3"}, r.failure_report()
    assert any(f.property == "ConformsToReference" for f in r.failures)
    # Every failure names the one call that reproduces it.
    f = r.failures[0]
    assert f"case={f.case}" in f.reproduce and f"properties=['{f.property}']" in f.reproduce
