#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ctest `frameworks`: every framework row, the committed docs/FRAMEWORKS.md
compared with a fresh run, and the findings' expected-failure tests.

Exits 77 (ctest's SKIP_RETURN_CODE) only when the venvs are absent, naming
the command that installs them; README's whole-suite command installs them,
so CI never skips."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))


def main():
    out = sys.argv[1]
    venvs = os.environ.get("ROPECHECK_FRAMEWORKS_VENVS", os.path.join(REPO, "build", "frameworks"))
    missing = [v for v in ("main", "vllm", "llama_cpp", "layered", "mlx", "jax", "flashinfer")
               if not os.path.exists(os.path.join(venvs, v, ".ropecheck-stamp"))]
    if missing:
        print(f"SKIPPED: no framework venv {', '.join(missing)} under {venvs}; "
              f"install with scripts/setup.sh --frameworks (README's whole-suite command does)")
        return 77
    env = dict(os.environ, ROPECHECK_FRAMEWORKS_VENVS=venvs)
    steps = [
        [sys.executable, os.path.join(HERE, "run_frameworks.py"), "--out", out, "--venvs", venvs],
        [sys.executable, os.path.join(HERE, "make_table.py"), "--results", out,
         "--check", os.path.join(REPO, "docs", "FRAMEWORKS.md")],
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
         os.path.join(HERE, "test_vllm_findings.py"), os.path.join(HERE, "test_liger_findings.py"),
         os.path.join(HERE, "test_llama_cpp_findings.py"), os.path.join(HERE, "test_sglang_findings.py"),
         os.path.join(HERE, "test_megatron_findings.py"), os.path.join(HERE, "test_hf_findings.py")],
    ]
    return run_steps("ctest_frameworks", steps, env)


def run_steps(name, steps, env):
    """Each command in turn (cwd here) until one fails; its exit status, 0 when all passed."""
    for cmd in steps:
        rc = subprocess.call(cmd, env=env, cwd=HERE)
        if rc:
            print(f"{name}: {' '.join(cmd[1:3])} exited {rc}")
            return rc
    return 0


if __name__ == "__main__":
    sys.exit(main())
