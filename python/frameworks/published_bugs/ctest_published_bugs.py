#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ctest `published_bugs` (label published-bugs): both releases of every
published bug run (run_bugs.py), then docs/FRAMEWORKS.md's section and
README's count line compared with the fresh run (make_bug_table.py --check).

Exits 77 (ctest's SKIP_RETURN_CODE) only when the main venv or a release's
layer is absent, naming the command that installs them (README's whole-suite
command does, so CI never skips)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import ctest_frameworks  # noqa: E402
from published_bugs import bugs  # noqa: E402


def main():
    out = sys.argv[1]
    venvs = os.environ.get("ROPECHECK_FRAMEWORKS_VENVS",
                           os.path.join(HERE, "..", "..", "..", "build", "frameworks"))
    needed = ["main"] + [os.path.join("layers", row["layer"]) for b in bugs.BUGS for row in bugs.rows(b)]
    missing = [n for n in needed if not os.path.exists(os.path.join(venvs, n, ".ropecheck-stamp"))]
    if missing:
        print(f"SKIPPED: no {', '.join(missing)} under {venvs}; install with scripts/setup.sh --frameworks "
              f"(python/frameworks/install.sh; README's whole-suite command does)")
        return 77
    env = dict(os.environ, ROPECHECK_FRAMEWORKS_VENVS=venvs)
    return ctest_frameworks.run_steps("ctest_published_bugs", [
        [sys.executable, os.path.join(HERE, "run_bugs.py"), "--out", out, "--venvs", venvs],
        [sys.executable, os.path.join(HERE, "make_bug_table.py"), "--results", out, "--check"]], env)


if __name__ == "__main__":
    sys.exit(main())
