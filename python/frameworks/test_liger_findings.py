# SPDX-License-Identifier: MIT
"""Why liger-kernel's bf16 row is not run (liger_rope.py, docs/FRAMEWORKS.md):
Triton's interpreter (TRITON_INTERPRET=1) computes bf16 arithmetic on the
uint16 bit patterns it stores bf16 in. Asserted on a one-line Triton kernel,
y = 2 x, in the main venv: fp32 comes back exact (the control), bf16 does not.
When Triton fixes it this test fails, and the bf16 row should be run.

Runs under the module's interpreter; the kernel runs in the main venv
(ROPECHECK_FRAMEWORKS_VENVS, default build/frameworks). Skipped, visibly,
where that venv is absent."""
import json
import os
import subprocess

import pytest

VENVS = os.environ.get("ROPECHECK_FRAMEWORKS_VENVS",
                       os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "frameworks"))
PYTHON = os.path.join(VENVS, "main", "bin", "python")
pytestmark = pytest.mark.skipif(not os.path.exists(PYTHON), reason=f"no main venv at {PYTHON} (install.sh)")

DOUBLE = r"""
import json, torch, triton, triton.language as tl

@triton.jit
def double(x, y, n: tl.constexpr):
    o = tl.arange(0, n)
    tl.store(y + o, tl.load(x + o) * 2)

out = {}
for name, dt in (("f32", torch.float32), ("bf16", torch.bfloat16)):
    x = torch.tensor([1.0, -1.5, 0.25, 3.0, 0.5, -2.0, 1.25, 7.0], dtype=dt)  # exact in bf16, as is 2x
    y = torch.empty_like(x)
    double[(1,)](x, y, 8)
    out[name] = {"x": x.float().tolist(), "y": y.float().tolist()}
print(json.dumps(out))
"""


def test_triton_interpreter_computes_bf16_on_its_bit_patterns():
    env = dict(os.environ, TRITON_INTERPRET="1", OMP_NUM_THREADS="1")
    env.pop("PYTHONPATH", None)
    run = subprocess.run([PYTHON, "-c", DOUBLE], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["f32"]["y"] == [2 * v for v in out["f32"]["x"]]  # the interpreter itself works
    assert out["bf16"]["y"] != [2 * v for v in out["bf16"]["x"]], "Triton's interpreter now doubles bf16 right"
