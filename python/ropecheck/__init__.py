# SPDX-License-Identifier: MIT
"""ropecheck: verify a RoPE kernel against the exact mathematics, from Python.

The same C++ core as the ``ropecheck`` command (docs/PYTHON.md):

    import ropecheck

    def my_rope(q, k, positions, rope):        # q: [tokens, q_heads, head_dim]
        ...                                     # rope.hf_config, rope.layout, ...
        return q_out, k_out

    result = ropecheck.check(my_rope, policy="f32_angle_product", layouts=["half_split"])
    assert result, result.failure_report()

A kernel is any callable ``fn(q, k, positions, rope) -> (q_out, k_out)``:
numpy arrays (or torch tensors with ``tensors="torch"``) of shape
[tokens, heads, head_dim], int64 positions [tokens], and a ``RopeCall``
describing the call (head_dim, rotary_dim, layout, direction, scheme, dtype,
seq_len, ``config`` in ropecheck's schema and ``hf_config`` as a Hugging Face
config.json states it). numpy has no bfloat16: bf16 data reaches a numpy
kernel widened exactly to float32 and its float32 result is rounded to bf16.
"""
from __future__ import annotations

from . import _core


def _refuse_unreadable_numpy() -> None:
    """pybind11 reads numpy's array structs with its own definitions; before
    2.12 it knows only numpy 1's layout (pybind11 2.12.0 changelog: "NumPy 2.0
    support"), and numpy 2 arrays then reach the core as garbage without an
    error: every verdict would be wrong. Refused at import, naming the fix."""
    import numpy

    major = int(numpy.__version__.split(".")[0])
    built = tuple(_core.PYBIND11_VERSION)
    if major >= 2 and built[:2] < (2, 12):
        raise ImportError(
            f"ropecheck: this module was built with pybind11 {'.'.join(map(str, built))}, which reads numpy 2 "
            f"arrays wrongly, and numpy {numpy.__version__} is installed; use numpy < 2 (Debian's python3-numpy, "
            f"what the module is built for) or rebuild the module with pybind11 >= 2.12")


_refuse_unreadable_numpy()

__all__ = [
    "check", "policies", "fuzz", "reference", "config_from_hf", "builtin_kernel", "CheckResult", "Failure",
    "FuzzResult", "PolicyResult", "Policy", "Unsupported", "KernelContractError", "RopeCall", "RopeConfig",
    "POLICIES", "PROPERTIES", "SCHEMES", "LAYOUTS", "DTYPES", "MULTI_AXIS_FORMS", "RESTRICTIONS", "FREQ_FORMS",
    "SUBNORMALS", "KvCacheWrite", "KvCacheCall", "CACHE_DTYPES",
]

# The package's parts, one job each; these names are its public API (and _config_text, _declaration,
# _kernel_name the helpers speed.py shares).
from ._vocabulary import (  # noqa: E402
    BuiltinKernel, CACHE_DTYPES, DTYPES, FREQ_FORMS, KernelContractError, Kernel, KvCacheCall, LAYOUTS,
    MULTI_AXIS_FORMS, POLICIES, PROPERTIES, RESTRICTIONS, RopeCall, RopeConfig, SCHEMES, SUBNORMALS, Unsupported)
from ._declare import KvCacheWrite, Policy, _declaration, _kernel_name  # noqa: E402
from ._results import CheckResult, Failure, FuzzResult, PolicyResult, PolicyTable  # noqa: E402
from ._check import check, policies  # noqa: E402
from ._reference import _config_text, builtin_kernel, config_from_hf, reference  # noqa: E402
from ._fuzz import fuzz  # noqa: E402

from .speed import BenchResult, bench  # noqa: E402  (ropecheck bench's engine)
