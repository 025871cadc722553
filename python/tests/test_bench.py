# SPDX-License-Identifier: MIT
"""ropecheck.bench on Python kernels: a correct kernel is timed, judged and
reported beside the baselines of the same run; a wrong one and one that
returns a result cached from an earlier call are named failures with no
speed; bad options are refused naming the argument."""
import json

import numpy as np
import pytest

import ropecheck
from hf_rope_numpy import hf_rope

# A small Llama-shaped model (head counts and head shape, default RoPE), so
# each row is a few calls of a few hundred tokens.
CONFIG = {"model_type": "llama", "hidden_size": 512, "num_attention_heads": 8, "num_key_value_heads": 2,
          "head_dim": 64, "rope_theta": 10000.0, "max_position_embeddings": 4096}
FAST = dict(config=CONFIG, prefill_tokens=128, decode_tokens=8, repetitions=4, judge=2, seed=7)


def test_a_correct_kernel_is_timed_and_judged_on_both_steps():
    r = ropecheck.bench(hf_rope, **FAST)
    assert r, r.table
    assert [row["step"] for row in r.rows] == ["prefill", "decode"]
    for row in r.rows:
        assert row["status"] == "timed", row
        assert row["judged"] == 2
        assert row["kernel"]["calls"] == 4 and row["memcpy"]["calls"] == 4 and row["in_place_pass"]["calls"] == 4
        assert 0 < row["kernel"]["min_seconds"] <= row["kernel"]["median_seconds"]
        assert row["ratio_to_in_place_pass"] > 0
    # The report `ropecheck bench compare` reads, with its checksum.
    doc = json.loads(r.json)
    assert doc["format"] == "ropecheck-bench" and len(doc["sha256"]) == 64
    assert "hf_rope" in r.table


def test_a_wrong_kernel_gets_a_failure_not_a_speed():
    def unrotated(q, k, positions, rope):
        return q.copy(), k.copy()
    r = ropecheck.bench(unrotated, **FAST)
    assert not r
    assert all(row["status"] == "failed" for row in r.rows)
    assert all("judged" in row["reason"] or "budget" in row["reason"] for row in r.rows), r.table


def test_a_kernel_returning_an_earlier_calls_result_fails():
    # Correct on its first call, then the first result again: the fresh
    # inputs of every timed call and the judged sample expose it.
    memo = {}

    def first_call_only(q, k, positions, rope):
        key = (q.shape, str(q.dtype), rope.layout)
        if key not in memo:
            memo[key] = hf_rope(q, k, positions, rope)
        return tuple(x.copy() for x in memo[key])
    r = ropecheck.bench(first_call_only, **FAST)
    assert not r
    assert any(row["status"] == "failed" for row in r.rows), r.table


@pytest.mark.parametrize("bad, field", [
    (dict(repetitions=1), "repetitions"),
    (dict(threads=[0]), "threads"),
    (dict(steps=["train"]), "steps"),
    (dict(prefill_tokens=0), "prefill_tokens"),
    (dict(config={"model_type": "llama", "rope_theta": 10000.0}), "config"),
])
def test_bad_options_are_refused_naming_the_argument(bad, field):
    with pytest.raises(ValueError, match=field):
        ropecheck.bench(hf_rope, **dict(FAST, **bad))


def test_a_builtin_kernel_is_timed_in_every_dtype_and_layout_it_declares():
    r = ropecheck.bench(ropecheck.builtin_kernel("scalar_naive"), **dict(FAST, steps=["decode"]))
    assert r, r.table
    rows = {(row["dtype"], row["layout"]) for row in r.rows if row["status"] == "timed"}
    assert rows == {(d, l) for d in ("f32", "f16", "bf16") for l in ("interleaved", "half_split")}, r.table
