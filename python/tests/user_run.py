# SPDX-License-Identifier: MIT
"""What a pytest run of user_project/test_user_kernel.py must show: one test
per case family, the HF port passing (or skipped, visibly) in each, the buggy
port passing its default family and failing llama3 with the reproduce line.
Shared by test_pytest_plugin.py (the build tree) and
python/pip_install/pip_install_test.py (a venv after `pip install .`)."""
FAMILIES = ("default", "linear", "ntk", "dynamic_ntk", "yarn", "llama3", "longrope", "explicit")


def problems(returncode, out):
    """The ways pytest's return code and -v -rs output differ from the expected run (empty: as expected)."""
    found = []
    if returncode != 1:
        found.append(f"pytest exited {returncode}, expected 1 (the buggy port's llama3 family fails)")
    for family in FAMILIES:
        if f"test_hf_port[{family}] PASSED" not in out and f"test_hf_port[{family}] SKIPPED" not in out:
            found.append(f"no test_hf_port[{family}] that passed or was skipped")
    if "test_buggy_port[default] PASSED" not in out:
        found.append("test_buggy_port[default] did not pass")
    if "test_buggy_port[llama3] FAILED" not in out:
        found.append("test_buggy_port[llama3] did not fail")
    if "ropecheck: family llama3 failed" not in out or "reproduce: ropecheck.check(" not in out:
        found.append("the llama3 failure does not print its reproduce line")
    return found
