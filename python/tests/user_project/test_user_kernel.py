# SPDX-License-Identifier: MIT
"""A user's test file, as docs/PYTHON.md tells a user to write one: their
NumPy RoPE (hf_rope_numpy, beside this file) under @pytest.mark.ropecheck,
one pytest test per case family, no `-p` flag once ropecheck is installed.
The second test is the same kernel with a Llama 3.1 band-edge bug: its
llama3 family must fail with the reproduce line. Run by
test_pytest_plugin.py (the build tree) and python/pip_install/ (a venv after
`pip install .`); the tests' own pytest run does not collect it (conftest)."""
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
