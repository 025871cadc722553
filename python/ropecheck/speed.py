# SPDX-License-Identifier: MIT
"""ropecheck.bench (this file: speed.py): a kernel's speed as `ropecheck bench` measures it, from Python (docs/PYTHON.md)."""
from __future__ import annotations

import dataclasses
import os
from typing import Any, Mapping, Optional, Sequence, Union

from . import _core
from ._declare import KvCacheWrite, _declaration, _kernel_name
from ._reference import _config_text
from ._vocabulary import Kernel


@dataclasses.dataclass(frozen=True)
class BenchResult:
    """What ``bench`` measured: one row per step, dtype, layout and thread count (each a dict: ``status``
    "timed", "failed" or "skipped" with its ``reason``; the ``kernel``'s, ``memcpy``'s and ``in_place_pass``'s
    median / min / quartile seconds per call and GB/s; ``ratio_to_memcpy`` and ``ratio_to_in_place_pass``;
    ``judged``: the calls whose output the gate's judge checked), the terminal ``table`` and the ``json`` report
    ``ropecheck bench compare`` reads. False when a row failed (a wrong output, a call faster than the roofline
    allows) or the kernel got no timed row."""

    passed: bool
    rows: list
    impl_failures: list
    table: str
    json: str
    errors: list
    seconds: float

    def __bool__(self) -> bool:
        return self.passed

    def save(self, path: Union[str, os.PathLike]) -> None:
        """Writes the JSON report (atomically: a temporary file, then a rename)."""
        tmp = os.fspath(path) + ".tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(self.json)
        os.replace(tmp, path)


def bench(fn: Kernel, *, config: Union[Mapping[str, Any], str, os.PathLike], name: Optional[str] = None,
          layouts: Sequence[str] = ("half_split",), dtypes: Sequence[str] = ("f32",),
          schemes: Optional[Sequence[str]] = None, policy: str = "f32_angle_product", in_place: bool = False,
          inverse: bool = False, partial_rotary: bool = True, negative_positions: bool = False,
          multi_axis: Union[bool, Sequence[str]] = False, max_position: Optional[int] = None,
          restrictions: Sequence[str] = (), tensors: str = "numpy", device: str = "cpu",
          fused: Optional[KvCacheWrite] = None, steps: Sequence[str] = ("prefill", "decode"),
          prefill_tokens: int = 4096, decode_tokens: int = 64, threads: Sequence[int] = (1,),
          repetitions: int = 10, judge: int = 0, cold: bool = False, seed: int = 0) -> BenchResult:
    """Time a kernel as ``ropecheck bench`` does (docs/GUIDE.md): on the prefill step (``prefill_tokens``
    consecutive positions from 0) and the decode step (``decode_tokens`` sequences of one token at unrelated
    positions) of the model whose Hugging Face ``config`` (a dict, JSON text or a path) gives the head counts,
    head shape and RoPE scheme, in every dtype and layout the kernel declares (the declaration is check()'s),
    at each of ``threads``. Each row's ``repetitions`` timed calls of the kernel and of the two baselines
    (a memcpy of the same bytes, an in-place read-modify-write pass) are interleaved at random in one run;
    every call gets inputs new in every element, in buffers that move, and every timed call (``judge`` 0,
    the default; else a random sample of that many) is judged under the declared policy: a fast wrong kernel is a failure, not a speed. ``cold``: every line
    of a call's buffers is flushed from the caches first. A Python kernel runs in this process, so a thread it
    leaves working after returning is not seen (``ropecheck bench`` on a plugin sees it)."""
    kname = _kernel_name(fn, name)
    declaration = _declaration(layouts=layouts, dtypes=dtypes, schemes=schemes, policy=policy, in_place=in_place,
                               inverse=inverse, partial_rotary=partial_rotary,
                               negative_positions=negative_positions, multi_axis=multi_axis,
                               max_position=max_position, restrictions=restrictions, tensors=tensors,
                               device=device, fused=fused)
    if isinstance(steps, str) or isinstance(threads, int):
        raise TypeError("steps and threads: lists (e.g. steps=['decode'], threads=[1, 2])")
    config_name = "config" if isinstance(config, Mapping) or os.fspath(config).lstrip().startswith("{") \
        else os.fspath(config)
    r = _core.bench(fn, name=kname, declaration=declaration, config_json=_config_text(config),
                    config_name=config_name, steps=list(steps), prefill_tokens=int(prefill_tokens),
                    decode_tokens=int(decode_tokens), threads=[int(t) for t in threads],
                    repetitions=int(repetitions), judge=int(judge), cold=bool(cold), seed=int(seed))
    return BenchResult(passed=r["passed"], rows=list(r["rows"]), impl_failures=list(r["impl_failures"]),
                       table=r["table"], json=r["json"], errors=list(r["errors"]), seconds=r["seconds"])
