# SPDX-License-Identifier: MIT
"""What a Python kernel can get wrong about the calling convention, and what
the bridge guarantees: results copied at once, inputs proven unchanged,
exceptions reported with their traceback, a wrong result shape refused."""
import numpy as np
import pytest

import ropecheck
from hf_rope_numpy import hf_rope

ONE_FAMILY = dict(schemes=["default"], layouts=["half_split", "interleaved"], dtypes=["f32", "f16", "bf16"])


def test_wrong_shape_is_a_clear_error():
    def truncated(q, k, positions, rope):
        q2, k2 = hf_rope(q, k, positions, rope)
        return q2[:, :, :-1], k2

    with pytest.raises(ropecheck.KernelContractError, match=r"returned q of shape .* expected \[tokens, heads, head_dim\]"):
        ropecheck.check(truncated, **ONE_FAMILY)


def test_wrong_dtype_is_a_clear_error():
    def doubles(q, k, positions, rope):
        q2, k2 = hf_rope(q, k, positions, rope)
        return q2.astype(np.float64), k2

    with pytest.raises(TypeError, match=r"dtype float64; expected .* of float(16|32)"):
        ropecheck.check(doubles, **ONE_FAMILY)


def test_a_raising_kernel_fails_with_its_traceback():
    def broken(q, k, positions, rope):
        raise ValueError("no kernel for head_dim %d" % rope.head_dim)

    r = ropecheck.check(broken, **ONE_FAMILY)
    assert not r.passed
    assert "raised no kernel for head_dim" in r.failures[0].message
    assert r.errors and "ValueError" in r.errors[0] and "test_calling_convention.py" in r.errors[0]


def test_modifying_the_inputs_fails_unless_declared_in_place():
    def sloppy(q, k, positions, rope):
        q2, k2 = hf_rope(q, k, positions, rope)
        q[...] = q2  # writes into what it was given
        return q2, k2

    r = ropecheck.check(sloppy, **ONE_FAMILY)
    assert not r.passed and "modified its input q" in r.failures[0].message

    def in_place(q, k, positions, rope):
        q2, k2 = hf_rope(q, k, positions, rope)
        q[...] = q2
        k[...] = k2

    assert ropecheck.check(in_place, in_place=True, **ONE_FAMILY).passed


def test_results_cached_across_calls_do_not_pass():
    cache = {}

    def caching(q, k, positions, rope):
        key = (rope.scheme, rope.head_dim, tuple(positions.tolist()), q.shape, k.shape, q.dtype, rope.layout)
        if key not in cache:
            cache[key] = hf_rope(q, k, positions, rope)
        return cache[key]

    r = ropecheck.check(caching, **ONE_FAMILY)
    assert not r.passed, "a kernel answering from a cache keyed by positions must fail"


def test_results_are_copied_when_returned():
    kept = []

    def keeps_and_scribbles(q, k, positions, rope):
        for old in kept:  # changes every result it returned before
            old[...] = 0
        out = hf_rope(q, k, positions, rope)
        kept.extend(out)
        return out

    r = ropecheck.check(keeps_and_scribbles, **ONE_FAMILY)
    assert r.passed, r.failure_report()


def test_bad_options_name_the_option():
    with pytest.raises(ValueError, match="layouts: unknown name 'diagonal'"):
        ropecheck.check(hf_rope, layouts=["diagonal"])
    with pytest.raises(ValueError, match="policy: unknown policy 'fast'"):
        ropecheck.check(hf_rope, policy="fast")
    with pytest.raises(ValueError, match="properties: no property named 'Nope'"):
        ropecheck.check(hf_rope, properties=["Nope"])
