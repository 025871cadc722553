# SPDX-License-Identifier: MIT
"""ropecheck.fuzz finds a planted bug and saves the failing input; it finds
nothing in a correct kernel within its time."""
import json

import numpy as np

import ropecheck
from hf_rope_numpy import hf_rope

OPTIONS = dict(policy="f32_angle_product", layouts=["half_split", "interleaved"], dtypes=["f32", "f16", "bf16"],
               inverse=True, negative_positions=True)


def test_fuzz_saves_the_failing_input(tmp_path):
    def wrong_above_4096(q, k, positions, rope):  # a second code path for long contexts, with the sign flipped
        q2, k2 = hf_rope(q, k, positions, rope)
        if np.any(np.abs(positions) > 4096):
            q2 = -q2
        return q2, k2

    r = ropecheck.fuzz(wrong_above_4096, seconds=60, seed=7, out=str(tmp_path), **OPTIONS)
    assert not r and r.failure is not None and r.path
    saved = json.loads(open(r.path).read())
    assert saved["suite"] == "exhaustive" and saved["reproduce"].startswith("ropecheck.check(")
    again = ropecheck.check(wrong_above_4096, suite="exhaustive", seed=saved["seed"], case=saved["case"], **OPTIONS)
    assert not again.passed


def test_fuzz_finds_nothing_in_a_correct_kernel(tmp_path):
    r = ropecheck.fuzz(hf_rope, seconds=3, seed=1, out=str(tmp_path), **OPTIONS)
    assert r and r.executions > 0
