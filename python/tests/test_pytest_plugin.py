# SPDX-License-Identifier: MIT
"""The pytest plugin gives one pytest test per case family, and a failing
family's assertion message carries the failing case's reproduce line: what a
new user sees, run as a user runs it (pytest in a subprocess, on the user's
test file user_project/test_user_kernel.py; user_run.py says what it must show)."""
import os
import shutil
import subprocess
import sys

import ropecheck
import user_run

HERE = os.path.dirname(os.path.abspath(__file__))


def test_one_pytest_test_per_family_with_reproduce_lines(tmp_path):
    shutil.copy(os.path.join(HERE, "user_project", "test_user_kernel.py"), tmp_path)
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(ropecheck.__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([HERE, package_root]))
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "ropecheck.pytest_plugin", "-v", "-rs",
                          str(tmp_path)], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600)
    out = run.stdout + run.stderr
    assert not user_run.problems(run.returncode, out), "\n".join(user_run.problems(run.returncode, out)) + "\n" + out
