# SPDX-License-Identifier: MIT
"""pytest plugin: one pytest test per case family. Loaded by itself where pip
installed ropecheck (the ``pytest11`` entry point in pyproject.toml); from the
build tree, ``pytest -p ropecheck.pytest_plugin``.

    import pytest

    @pytest.mark.ropecheck(policy="f32_angle_product", layouts=["half_split"])
    def test_my_rope(ropecheck_family):
        ropecheck_family.check(my_rope)

runs the gate once per frequency scheme (test_my_rope[default],
test_my_rope[yarn], ...); a failing family fails its test with the failing
cases and their reproduce lines. The marker takes ropecheck.check's options;
``schemes=[...]`` narrows the families.
"""
from __future__ import annotations

from typing import Any, Optional

import pytest

import ropecheck


def pytest_configure(config: Any) -> None:
    config.addinivalue_line(
        "markers", "ropecheck(**options): ropecheck.check options for the ropecheck_family fixture's kernel")


def pytest_generate_tests(metafunc: Any) -> None:
    if "ropecheck_family" not in metafunc.fixturenames:
        return
    marker = metafunc.definition.get_closest_marker("ropecheck")
    options = dict(marker.kwargs) if marker else {}
    families = list(options.pop("schemes", None) or ropecheck.SCHEMES)
    metafunc.parametrize("ropecheck_family", [(f, options) for f in families], ids=families, indirect=True)


class Family:
    """One case family (frequency scheme) of the gate, for one pytest test."""

    def __init__(self, scheme: str, options: dict[str, Any]) -> None:
        self.scheme = scheme
        self.options = options
        self.result: Optional[ropecheck.CheckResult] = None

    def check(self, fn: ropecheck.Kernel, **overrides: Any) -> ropecheck.CheckResult:
        """Gate ``fn`` on this family's cases; pytest.fail with the reproduce lines on a failure."""
        # One test per scheme: together they judge the suite's cases once, each
        # its scheme's (no scheme redraw); dtypes and layouts still redraw.
        options = {**self.options, **overrides, "schemes": [self.scheme], "redraw_schemes": False}
        self.result = ropecheck.check(fn, **options)
        fam = self.result.families.get(self.scheme, {})
        if not self.result.passed:
            pytest.fail(f"ropecheck: family {self.scheme} failed\n" + self.result.failure_report(), pytrace=False)
        if fam.get("passed", 0) == 0:
            pytest.skip(f"ropecheck: no case of family {self.scheme} inside the kernel's declared capabilities")
        return self.result


@pytest.fixture
def ropecheck_family(request: Any) -> Family:
    scheme, options = request.param
    return Family(scheme, options)
