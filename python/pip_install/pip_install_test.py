#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""ctest pip_install: what a Python user does, in a fresh virtual environment.

  python3 -m venv V && V/bin/pip install <repo> && V/bin/pip install pytest numpy
  cd <a folder with the user's test file> && V/bin/pytest -v -rs

The user's test file is python/tests/user_project/test_user_kernel.py (a
NumPy RoPE under @pytest.mark.ropecheck, and the same kernel with a bug)
beside that NumPy RoPE; pytest finds the plugin through its entry point, no
`-p`. python/tests/user_run.py says what the run must show. Versions: the
[pip] section of python/frameworks/constraints.txt, through PIP_CONSTRAINT
(it reaches pip's isolated build environment too); afterwards every package
in the venv must be one of those pins.

Usage: pip_install_test.py REPO WORK_DIR BUILD_DIR. WORK_DIR holds the venv
and the user's folder (made anew); BUILD_DIR is scikit-build-core's build
tree, kept between runs and, beside the release tree at its depth, compiled
from ccache's hits of it (cmake/RopecheckCcache.cmake). Exit 77 (ctest: skipped)
when the interpreter cannot make a venv with pip (Debian's python3-venv missing).
"""
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import time

SKIP = 77


def section(constraints_path, name):
    """The pins under "# [name]" up to the next "# [" header (python/frameworks/install.sh's reading)."""
    pins, on = [], False
    with open(constraints_path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line == f"# [{name}]":
                on = True
            elif line.startswith("# ["):
                on = False
            elif on and "==" in line:
                pins.append(line)
    if not pins:
        sys.exit(f"pip_install: no [{name}] section with pins in {constraints_path}")
    return pins


def name(requirement):
    """The normalized project name of a `pip freeze` line ("Pygments==2.21.0", "ropecheck @ file:///...")."""
    return re.split(r"==| @ ", requirement, maxsplit=1)[0].strip().lower().replace("_", "-")


def run(step, argv, **kw):
    """Runs one step, prints its wall time; the step's output is shown when it fails."""
    start = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True, **kw)
    print(f"pip_install: {step}: {time.monotonic() - start:.1f} s (exit {done.returncode})", flush=True)
    return done


def require(done, step):
    if done.returncode != 0:
        sys.exit(f"pip_install: {step} failed (exit {done.returncode}):\n{done.stdout}{done.stderr}")
    return done


def main(repo, work, build_dir):
    if importlib.util.find_spec("venv") is None or importlib.util.find_spec("ensurepip") is None:
        print("pip_install: SKIPPED: this python3 cannot make a venv with pip (no venv/ensurepip module: "
              "Debian's python3-venv, which scripts/setup.sh --tests installs)")
        return SKIP
    pins = section(os.path.join(repo, "python", "frameworks", "constraints.txt"), "pip")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    constraints = os.path.join(work, "pip-constraints.txt")
    with open(constraints, "w", encoding="utf-8") as f:
        f.write("\n".join(pins) + "\n")
    venv = os.path.join(work, "venv")
    bin_dir = os.path.join(venv, "bin")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(PIP_CONSTRAINT=constraints, PIP_DISABLE_PIP_VERSION_CHECK="1")
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")

    require(run("python3 -m venv", [sys.executable, "-m", "venv", venv], env=env), "python3 -m venv")
    pip = [os.path.join(bin_dir, "python"), "-m", "pip", "install", "--quiet"]
    require(run("pip install . (build and install)", pip + [f"--config-settings=build-dir={build_dir}", repo],
                env=env, cwd=work), "pip install .")
    require(run("pip install pytest numpy", pip + ["pytest", "numpy"], env=env, cwd=work), "pip install pytest numpy")

    failures = []
    freeze = require(run("pip freeze", [os.path.join(bin_dir, "python"), "-m", "pip", "freeze", "--all"], env=env),
                     "pip freeze").stdout.splitlines()
    installed = {name(line): line for line in freeze if line.strip()}
    if "ropecheck" not in installed:
        failures.append(f"ropecheck is not installed in the venv: {freeze}")
    # pip and setuptools come with the venv (ensurepip), ropecheck from the repository.
    pinned = {name(p): p.split("==", 1)[1] for p in pins}
    unpinned = [line for n, line in installed.items() if n not in ("pip", "setuptools", "ropecheck")
                and line.split("==", 1)[-1] != pinned.get(n)]
    if unpinned:
        failures.append(f"packages in the venv other than the [pip] pins: {unpinned}")

    where = run("import ropecheck", [os.path.join(bin_dir, "python"), "-c", "import ropecheck; print(ropecheck.__file__)"],
                env=env, cwd=work)
    if where.returncode != 0 or not os.path.realpath(where.stdout.strip()).startswith(os.path.realpath(venv)):
        failures.append(f"ropecheck is not imported from the venv: {where.stdout}{where.stderr}")
    command = run("ropecheck list", [os.path.join(bin_dir, "ropecheck"), "list"], env=env, cwd=work)
    if command.returncode != 0 or "scalar_naive" not in command.stdout:
        failures.append(f"the installed `ropecheck list` failed or lists no scalar_naive (exit {command.returncode}):\n"
                        f"{command.stdout}{command.stderr}")

    user = os.path.join(work, "user_project")
    os.makedirs(user)
    tests = os.path.join(repo, "python", "tests")
    for f in (os.path.join("user_project", "test_user_kernel.py"), "hf_rope_numpy.py"):
        shutil.copy(os.path.join(tests, f), user)
    pytest_run = run("pytest (no -p)", [os.path.join(bin_dir, "pytest"), "-v", "-rs"], env=env, cwd=user)
    out = pytest_run.stdout + pytest_run.stderr
    sys.path.insert(0, tests)
    import user_run  # noqa: E402  (python/tests/user_run.py: what the run must show)

    failures += user_run.problems(pytest_run.returncode, out)
    print(out)
    if failures:
        print("pip_install: FAILED:\n  " + "\n  ".join(failures))
        return 1
    print("pip_install: passed (one test per family, the buggy kernel failing with its reproduce line)")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: pip_install_test.py REPO WORK_DIR BUILD_DIR")
    sys.exit(main(*(os.path.abspath(a) for a in sys.argv[1:])))
