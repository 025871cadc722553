"""The pytest plugin gives one pytest test per case family, and a failing
family's assertion message carries the failing case's reproduce line: what a
new user sees, run as a user runs it (pytest in a subprocess)."""
import os
import subprocess
import sys
import textwrap

import ropecheck

USER_TEST = textwrap.dedent('''
    import functools
    import pytest
    from hf_rope_numpy import hf_rope

    OPTIONS = dict(policy="f32_angle_product", layouts=["half_split", "interleaved"], dtypes=["f32", "bf16"])

    @pytest.mark.ropecheck(**OPTIONS)
    def test_hf_port(ropecheck_family):
        ropecheck_family.check(hf_rope)

    @pytest.mark.ropecheck(schemes=["default", "llama3"], **OPTIONS)
    def test_buggy_port(ropecheck_family):
        ropecheck_family.check(functools.partial(hf_rope, llama3_band_edge_bug=True))
''')


def test_one_pytest_test_per_family_with_reproduce_lines(tmp_path):
    (tmp_path / "test_user_kernel.py").write_text(USER_TEST)
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(ropecheck.__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.dirname(os.path.abspath(__file__)), package_root]))
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "ropecheck.pytest_plugin", "-v", "-rs",
                          str(tmp_path)], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600)
    out = run.stdout + run.stderr
    assert run.returncode == 1, out  # the buggy port fails
    for family in ("default", "linear", "ntk", "dynamic_ntk", "yarn", "llama3", "longrope", "explicit"):
        assert f"test_hf_port[{family}] PASSED" in out or f"test_hf_port[{family}] SKIPPED" in out, out
    assert "test_buggy_port[default] PASSED" in out, out
    assert "test_buggy_port[llama3] FAILED" in out, out
    assert "ropecheck: family llama3 failed" in out and "reproduce: ropecheck.check(" in out, out
