# SPDX-License-Identifier: MIT
"""Expected-failure tests for findings S1 and S2 (docs/FRAMEWORKS.md): each
asserts the exact divergence, computed here in float64 from the formulas (not
from SGLang's output), so a SGLang change in either direction fails the test.
S2 (LongRoPE, which no row declares: its adapter call is forward_native, which
Phi3LongRoPEScaledRotaryEmbedding lacks) calls the class's forward in a
subprocess of the same venv.

Runs under the module's interpreter; SGLang runs in a worker of its venv
(ROPECHECK_FRAMEWORKS_VENVS, default build/frameworks). Skipped, visibly,
where that venv is absent."""
import os
import subprocess

import numpy as np
import pytest

import findings_math
import proxy
from findings_math import rotate_f64
import sglang_native

VENVS = os.environ.get("ROPECHECK_FRAMEWORKS_VENVS",
                       os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "frameworks"))
PYTHON = os.path.join(VENVS, "layered", "bin", "python")
pytestmark = pytest.mark.skipif(not os.path.exists(PYTHON), reason=f"no SGLang venv at {PYTHON} (install.sh)")

D, B, S, L = 64, 10000.0, 4.0, 4096


@pytest.fixture(scope="module")
def sglang_kernel():
    row = next(r for r in sglang_native.ROWS if r["id"] == "sglang_native_f32")
    k = proxy.FrameworkKernel("sglang_native", row, PYTHON, env=row["env"])
    yield k
    k.close()





def call(kernel, scaling, positions, seq_len=0):
    return findings_math.call(kernel, {"rope_theta": B, "max_position_embeddings": L, "rope_scaling": scaling},
                              positions, D, seq_len)


def test_sglang_dynamic_is_static_ntk_at_s_times_L(sglang_kernel):
    positions = np.arange(0, L, 61, dtype=np.int64)
    n = 2 * L  # a sequence of 2 L tokens: HF's dynamic base at n; SGLang's is at s L whatever n is
    q, got = call(sglang_kernel, {"rope_type": "dynamic", "factor": S}, positions, seq_len=n)
    i = np.arange(0, D, 2, dtype=np.float64)
    static_at_sl = (B * (S * S - (S - 1)) ** (D / (D - 2))) ** (-i / D)  # rope_variant.py:881-885, n = s L
    hf_dynamic = (B * (S * n / L - (S - 1)) ** (D / (D - 2))) ** (-i / D)  # modeling_rope_utils, seq_len n > L
    assert np.abs(got - rotate_f64(q, positions, static_at_sl)).max() < 2e-3
    assert np.abs(got - rotate_f64(q, positions, hf_dynamic)).max() > 0.5


# S2: Phi3LongRoPEScaledRotaryEmbedding (rope_variant.py:37-170, SGLang 0.5.23) as get_rope builds it for an HF
# "longrope" config (factory.py:402-427): head_size = rotary_dim = 8, max_position_embeddings 64,
# original_max_position_embeddings L = 16, the short list all 1, the long list all 2.
LR_D, LR_MAX, LR_L = 8, 64, 16
LR_SHORT, LR_LONG = [1.0] * (LR_D // 2), [2.0] * (LR_D // 2)
_LONGROPE_CALL = """
import sys
import numpy as np
import torch
import sglang_native
rotary = sglang_native.import_rotary()
emb = rotary.get_rope({d}, {d}, {max_pos}, 10000, is_neox_style=True, dtype=torch.float32,
                      rope_scaling={{"rope_type": "longrope", "short_factor": {short}, "long_factor": {long},
                                    "original_max_position_embeddings": {L}}})
assert type(emb).__name__ == "Phi3LongRoPEScaledRotaryEmbedding", type(emb)
out = []
for positions in ([15, 16, 3], [15, 16, 17]):
    q = torch.ones(3, {d})
    with torch.no_grad():
        qo, _ = emb.forward(torch.tensor(positions), q, torch.ones(3, {d}))
    out.append(qo.numpy().astype(np.float64))
np.save(sys.argv[1], np.stack(out))
"""


def longrope_f64(positions, factors):
    """HF's LongRoPE in float64 (transformers 5.24.0 modeling_rope_utils.py:487-578, modeling_phi3.py:105-110):
    inv_freq = 1 / (factor_i b^(2i/d)), cos and sin times the attention factor sqrt(1 + ln s / ln L), s = 64 / 16
    (modeling_rope_utils.py:560-567), on q = ones [tokens, d] rotated half split."""
    s = LR_MAX / LR_L
    mscale = np.sqrt(1 + np.log(s) / np.log(LR_L))
    inv_freq = 1.0 / (np.array(factors) * 10000.0 ** (np.arange(0, LR_D, 2, dtype=np.float64) / LR_D))
    q = np.ones((len(positions), 1, LR_D))
    return mscale * rotate_f64(q, np.array(positions), inv_freq)[:, 0, :], mscale


def test_sglang_longrope_position_L_reads_long_row_0_unrotated(tmp_path):
    out = tmp_path / "s2.npy"
    here = os.path.dirname(os.path.abspath(__file__))
    script = _LONGROPE_CALL.format(d=LR_D, max_pos=LR_MAX, L=LR_L, short=LR_SHORT, long=LR_LONG)
    subprocess.run([PYTHON, "-c", script, str(out)], cwd=here, check=True, timeout=300,
                   env=dict(os.environ, SGLANG_LOGGING_LEVEL="ERROR"))
    at_l, above_l = np.load(out)
    # HF picks one list for the whole call from seq_len = max(position_ids) + 1 (modeling_rope_utils.py:49, 79):
    # 17 > L, so the long list for positions 15, 16 and 3
    hf, mscale = longrope_f64([15, 16, 3], LR_LONG)
    short, _ = longrope_f64([15, 16, 3], LR_SHORT)
    # the bug: position L = 16 (row 1) comes back unrotated, q times the attention factor (long cache row 0)
    assert np.abs(at_l[1] - mscale).max() < 1e-6
    assert np.abs(at_l[1] - hf[1]).max() > 0.5  # HF's rotation at 16 (long list)
    assert np.abs(at_l[1] - short[1]).max() > 0.5  # nor the short list's rotation at 16
    # exactly at the boundary: positions 15 and 3 of the same call are the short list's rotation (SGLang's choice,
    # no position above L), to fp32 rounding of angles below 16 rad
    assert np.abs(at_l[[0, 2]] - short[[0, 2]]).max() < 1e-5
    # and with a position above L in the call (SGLang then takes the long list), position 16 is rotated right
    hf_above, _ = longrope_f64([15, 16, 17], LR_LONG)
    assert np.abs(above_l - hf_above).max() < 1e-5
