# SPDX-License-Identifier: MIT
"""ABI 1.7 from Python: a kernel declines a case (ropecheck.Unsupported), declares the parts of its arithmetic
(ropecheck.Policy: flushed subnormals, the frequency's form) and the parameters it lacks (no_yarn_mscale),
and ropecheck.policies names the policy its arithmetic matches."""
import functools

import numpy as np
import pytest

import ropecheck
from hf_rope_numpy import hf_rope

F32 = dict(layouts=["half_split", "interleaved"], dtypes=["f32"], negative_positions=True, inverse=True)
TINY = np.float32(2.0**-126)  # fp32's smallest normal number


def flushed(x):
    """FTZ/DAZ on fp32 values: below the smallest normal, a zero of the same sign."""
    x = np.asarray(x, dtype=np.float32)
    return np.where(np.abs(x) < TINY, np.copysign(np.float32(0), x), x).astype(np.float32)


def ftz_rope(q, k, positions, rope):
    """HF's fp32 arithmetic (hf_rope_numpy) on inputs read through DAZ, its results written through FTZ."""
    q_out, k_out = hf_rope(flushed(q), flushed(k), positions, rope)
    d = rope.rotary_dim  # pass-through channels are copied, not computed: never flushed
    for out, given in ((q_out, q), (k_out, k)):
        out[..., :d] = flushed(out[..., :d])
        out[..., d:] = given[..., d:]
    return q_out, k_out


def test_a_declined_case_is_skipped_and_counted_by_its_reason_never_failed():
    def no_linear(q, k, positions, rope):
        if rope.scheme == "linear":
            raise ropecheck.Unsupported("linear scaling: no scale argument")
        return hf_rope(q, k, positions, rope)

    r = ropecheck.check(no_linear, **F32, policy="f32_angle_product")
    assert r.passed, r.failure_report()
    declined = r.skipped.get("declined by the kernel: linear scaling: no scale argument", 0)
    assert declined > 0 and declined == r.families["linear"]["skipped"], (r.skipped, r.families["linear"])
    assert r.families["linear"]["failed"] == 0


def test_a_kernel_declining_every_case_fails_on_the_verdict_floor():
    def declines_all(q, k, positions, rope):
        raise ropecheck.Unsupported("nothing")

    r = ropecheck.check(declines_all, cases=12)
    assert not r.passed and not r.failures, r.failure_report()
    assert r.skipped == {"declined by the kernel: nothing": 12}
    assert any("declined by it" in why and "declined by the kernel: nothing" in why for _, why in r.under_floor), \
        r.under_floor


def test_flushed_subnormals_pass_when_declared_and_fail_when_not():
    declared = ropecheck.Policy("f32_angle_product", subnormals="flushed")
    r = ropecheck.check(ftz_rope, **F32, policy=declared)
    assert r.passed, r.failure_report()
    undeclared = ropecheck.check(ftz_rope, **F32, policy="f32_angle_product", properties=["ConformsToReference"])
    assert not undeclared.passed  # an exact value of 1e-39 read as 0: millions of budgets off
    assert max(f.family for f in undeclared.failures)  # cases of the suite's subnormal inputs
    assert r.policy.endswith("subnormals flushed"), r.policy


def test_no_yarn_mscale_skips_deepseeks_parameters():
    def ignores_mscale(q, k, positions, rope):
        class Plain:  # the call without DeepSeek's mscale / mscale_all_dim: YaRN's own 0.1 ln s + 1
            pass
        plain = Plain()
        plain.__dict__.update({a: getattr(rope, a) for a in ("rotary_dim", "scheme", "layout", "direction")})
        plain.config = dict(rope.config, mscale=0.0, mscale_all_dim=0.0)
        return hf_rope(q, k, positions, plain)

    opts = dict(F32, schemes=["yarn"], suite="standard", properties=["ConformsToReference"])
    with_flag = ropecheck.check(ignores_mscale, restrictions=["no_yarn_mscale"], **opts)
    assert with_flag.passed, with_flag.failure_report()
    reason = "outside capabilities: freq.mscale: DeepSeek's mscale / mscale_all_dim set " \
             "(the kernel declares NO_YARN_MSCALE)"
    assert with_flag.skipped.get(reason, 0) > 0, with_flag.skipped
    without = ropecheck.check(ignores_mscale, **opts)
    assert not without.passed  # those cases' attention factor is g(s, mscale) / g(s, mscale_all_dim)


def test_a_policy_with_parts_is_checked_naming_the_field():
    with pytest.raises(ValueError, match="policy_ext2.freq_exp_slope: must be in"):
        ropecheck.check(hf_rope, cases=1, policy=ropecheck.Policy("f32_angle_product", freq_form="exp_log",
                                                                   freq_exp_slope=1.0))
    with pytest.raises(ValueError, match="policy.freq_form: must be one of power, exp_log, table"):
        ropecheck.check(hf_rope, cases=1, policy=ropecheck.Policy("f32_angle_product", freq_form="exp"))
    with pytest.raises(ValueError, match="policy_ext2.freq_exp_slope: belongs to freq_form EXP_LOG"):
        ropecheck.check(hf_rope, cases=1, policy=ropecheck.Policy("f32_angle_product", freq_exp_slope=1e-7))
    assert repr(ropecheck.Policy("hf_eager", subnormals="flushed")) == \
        "ropecheck.Policy('hf_eager', subnormals='flushed')"


def test_policies_names_the_tightest_passing_policy():
    table = ropecheck.policies(hf_rope, **F32, cases=40)
    rows = {r.policy: r for r in table}
    assert set(rows) == set(ropecheck.POLICIES)
    assert not rows["exact_f64"].passed  # an fp32 angle is millions of budgets off an fp64 one
    assert rows["f32_angle_product"].passed
    # fp32 HF arithmetic: f32_angle_product, or fma_storage, whose two roundings for the rotation's three
    # the suite cannot tell apart in fp32 with fp32 sin/cos (docs/ERROR_MODEL.md, "each budget is tight")
    assert table.declare in ("f32_angle_product", "fma_storage"), str(table)
    assert rows["mlx_cpu"].passed and rows["mlx_cpu"].mean_budget_units < rows["f32_angle_product"].mean_budget_units
    assert "(declare this one)" in str(table)
    # FTZ arithmetic: only the policy with flushed subnormals fits it.
    ftz = ropecheck.policies(ftz_rope, **F32, cases=40)
    assert ftz.declare == "xla_cpu", str(ftz)


def test_the_q_only_call_hands_k_with_zero_heads():
    shapes = []

    def records(q, k, positions, rope):
        shapes.append((q.shape, k.shape))
        return hf_rope(q, k, positions, rope)

    r = ropecheck.check(records, **F32, properties=["RotatesQTheSameWithoutK"], cases=6)
    assert r.passed, r.failure_report()
    assert any(k[1] == 0 and k[0] == q[0] and k[2] == q[2] for q, k in shapes), shapes


def test_rope_config_holds_the_documented_keys():
    # docs/PYTHON.md, "What a kernel receives": keep the table there true.
    documented = {"ropecheck_config", "scheme", "layout", "head_dim", "rotary_dim", "base", "factor",
                  "original_max_position", "seq_len", "beta_fast", "beta_slow", "truncate", "mscale",
                  "mscale_all_dim", "low_freq_factor", "high_freq_factor"}
    optional = {"attention_factor", "short_factor", "long_factor", "inv_freq"}
    seen = set()

    def records(q, k, positions, rope):
        keys = set(rope.config)
        assert documented <= keys and keys <= documented | optional, sorted(keys ^ documented)
        seen.update(keys & optional)
        return hf_rope(q, k, positions, rope)

    ropecheck.check(records, **F32, properties=["ConformsToReference"])
    assert seen == optional, seen
