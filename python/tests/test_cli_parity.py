# SPDX-License-Identifier: MIT
"""The built-in scalar_naive called through Python gives the CLI's cases and
verdicts: the same summary tables, number for number (only the run time in the
title differs), so the bridge adds nothing and loses nothing."""
import os
import subprocess

import pytest

import ropecheck

CLI = os.environ.get("ROPECHECK_CLI")


@pytest.mark.skipif(not CLI, reason="ROPECHECK_CLI (the ropecheck binary) not set: run through ctest")
def test_scalar_naive_through_python_matches_the_cli(tmp_path):
    summary = tmp_path / "cli.md"
    cli = subprocess.run([CLI, "check", "--impl", "scalar_naive", "--suite", "quick", "--seed", "3", "--quiet",
                          "--summary", str(summary)], capture_output=True, text=True, timeout=600)
    assert cli.returncode == 0, cli.stdout + cli.stderr
    r = ropecheck.check(ropecheck.builtin_kernel("scalar_naive"), suite="quick", seed=3)
    assert r.passed, r.failure_report()

    def body(text):  # drop the title line, which holds the run time
        return text.split("\n", 1)[1]

    assert body(r.tables) == body(summary.read_text())
    assert r.cases == 120
