# SPDX-License-Identifier: MIT
"""ropecheck.fuzz (this file: _fuzz.py): the seeded random search for a failing case of a Python kernel."""
from __future__ import annotations

import json
import os
import random
import time
from typing import Any, Optional

from ._check import check
from ._declare import _kernel_name
from ._results import FuzzResult
from ._vocabulary import Kernel


def fuzz(fn: Kernel, *, seconds: float = 60.0, seed: Optional[int] = None, out: Optional[str] = None,
         **options: Any) -> FuzzResult:
    """Search for a failing case within ``seconds``: cases of the exhaustive suite's generator (positions to
    int32 max and below zero, every scheme, layout, dtype) under random seeds, every property, until the first
    failure. The Python module is built without libFuzzer, so this is the seeded random search; the
    coverage-guided fuzzer for C-ABI kernels is ``ropecheck fuzz``. The failing case is written as JSON
    (suite, seed, case, property, message, reproduce) to ``out`` (default ``ropecheck-fuzz-<name>``).
    ``options`` are check()'s."""
    if not (seconds > 0):
        raise ValueError("seconds: must be > 0")
    rng = random.Random(seed)
    name = _kernel_name(fn, options.get("name"))
    deadline = time.monotonic() + seconds
    t0 = time.monotonic()
    executions = 0
    while time.monotonic() < deadline:
        run_seed = rng.getrandbits(63)
        for index in range(0, 4000):
            if time.monotonic() >= deadline:
                break
            r = check(fn, suite="exhaustive", seed=run_seed, case=index, **options)
            executions += 1
            if not r.passed:
                f = r.failures[0] if r.failures else None
                directory = out or f"ropecheck-fuzz-{name}"
                os.makedirs(directory, exist_ok=True)
                path = os.path.join(directory, f"failure-seed{run_seed}-case{index}.json")
                record = {"suite": "exhaustive", "seed": run_seed, "case": index,
                          "property": f.property if f else None, "message": f.message if f else r.tables,
                          "description": f.description if f else "", "reproduce": f.reproduce if f else ""}
                tmp = path + ".tmp"
                with open(tmp, "w", encoding="utf-8") as fh:
                    json.dump(record, fh, indent=2)
                os.replace(tmp, path)
                return FuzzResult(executions, time.monotonic() - t0, f, path)
    return FuzzResult(executions, time.monotonic() - t0, None, None)
