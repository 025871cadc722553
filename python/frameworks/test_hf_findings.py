# SPDX-License-Identifier: MIT
"""Expected-failure test for the finding the dynamic NTK fixes left
(docs/FRAMEWORKS.md, published bugs: transformers #25306 and PR #46624 rows):
transformers resets a dynamic RoPE module's inv_freq only when the request is
shorter than max_position_embeddings (seq_len < original_max_seq_len), so a
request of exactly max_position_embeddings tokens after a longer one keeps
the longer one's scaled frequencies. HF's own formula at that length
(_compute_dynamic_ntk_parameters: base * (factor * seq_len / L - (factor -
1)) ** (d / (d - 2)), seq_len = L) is the default base.

The expected values are computed here in float64 from that formula, not
from transformers' output, so a change in either direction fails the test.
transformers runs in the main venv (ROPECHECK_FRAMEWORKS_VENVS, default
build/frameworks); skipped, visibly, where that venv is absent."""
import json
import os
import subprocess

import numpy as np
import pytest

VENVS = os.environ.get("ROPECHECK_FRAMEWORKS_VENVS",
                       os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "frameworks"))
PYTHON = os.path.join(VENVS, "main", "bin", "python")
pytestmark = pytest.mark.skipif(not os.path.exists(PYTHON), reason=f"no main venv at {PYTHON} (install.sh)")

D, BASE, L, FACTOR = 16, 10000.0, 64, 4.0

# A fresh dynamic module serves L + 1 tokens, then exactly L; prints the angle of pair 1 at position L - 1
# (acos of cos is ambiguous; the frequency is read back as angle / position from atan2(sin, cos) of a small
# position instead: position 1).
SCRIPT = f"""
import json, torch
from transformers import LlamaConfig
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding
cfg = LlamaConfig(hidden_size={D} * 2, num_attention_heads=2, head_dim={D}, max_position_embeddings={L},
                  rope_theta={BASE}, rope_scaling={{"rope_type": "dynamic", "factor": {FACTOR}}})
emb = LlamaRotaryEmbedding(cfg)
x = torch.zeros(1, 1, {L} + 1, {D})
def freqs(n):
    cos, sin = emb(x[:, :, :n], torch.arange(n)[None])
    return torch.atan2(sin[0, 1, :{D} // 2], cos[0, 1, :{D} // 2]).double().tolist()
fresh = freqs({L})
freqs({L} + 1)
after = freqs({L})
print(json.dumps(dict(fresh=fresh, after=after)))
"""


def dynamic_inv_freq(seq_len):
    """HF's dynamic NTK inverse frequencies for a request of seq_len tokens, in float64."""
    base = BASE * ((FACTOR * max(seq_len, L) / L) - (FACTOR - 1)) ** (D / (D - 2))
    return base ** (-np.arange(0, D, 2) / D)


def test_dynamic_ntk_keeps_stale_frequencies_at_length_L():
    out = subprocess.run([PYTHON, "-c", SCRIPT], capture_output=True, text=True, timeout=300, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    default, scaled = dynamic_inv_freq(L), dynamic_inv_freq(L + 1)
    assert np.abs(np.array(got["fresh"]) - default).max() < 1e-6  # a fresh module at L: the default ones
    # after L + 1 tokens, a request of L tokens keeps L + 1's frequencies (the finding) ...
    assert np.abs(np.array(got["after"]) - scaled).max() < 1e-6
    # ... which differ from the default ones by far more than fp32's rounding
    assert np.abs(scaled - default).max() > 1e-3
