# SPDX-License-Identifier: MIT
"""ropecheck.check and ropecheck.policies (this file: _check.py): the gate over a Python kernel, and the
gate under every catalogue policy."""
from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence, Union

from . import _core
from ._declare import KvCacheWrite, Policy, _declaration, _kernel_name
from ._results import CheckResult, Failure, PolicyResult, PolicyTable
from ._vocabulary import POLICIES, Kernel


def _python_reproduce(name: str, options: Mapping[str, Any], case: int, prop: str) -> str:
    shown = {k: v for k, v in options.items() if k not in ("case", "properties", "cases")}
    args = ", ".join(f"{k}={v!r}" for k, v in shown.items())
    return f"ropecheck.check({name}, {args}, case={case}, properties=[{prop!r}])"


def check(fn: Kernel, *, name: Optional[str] = None, layouts: Sequence[str] = ("half_split",),
          dtypes: Sequence[str] = ("f32",), schemes: Optional[Sequence[str]] = None,
          policy: Union[str, Policy] = "f32_angle_product", suite: str = "quick", seed: int = 1,
          cases: Optional[int] = None,
          case: Optional[int] = None, properties: Optional[Sequence[str]] = None, in_place: bool = False,
          inverse: bool = False, partial_rotary: bool = True, negative_positions: bool = False,
          multi_axis: Union[bool, Sequence[str]] = False, max_position: Optional[int] = None,
          restrictions: Sequence[str] = (), tensors: str = "numpy", device: str = "cpu", redraw: bool = True,
          redraw_schemes: Optional[bool] = None, fused: Optional[KvCacheWrite] = None) -> CheckResult:
    """Run the gate (every kernel property over a suite) on a Python kernel.

    The kernel declares what it supports (``layouts``, ``dtypes``, ``schemes``,
    ``inverse``, ``partial_rotary``, ``negative_positions``; ``multi_axis``:
    positions ``[rope.num_axes, tokens]`` with M-RoPE / axial assignments,
    see RopeCall: True for every form, or the forms it takes among
    ``MULTI_AXIS_FORMS``; ``max_position``: positions p with |p| >= it are
    outside, a cos/sin cache of that many rows; ``restrictions``: scheme
    parameters it does not take, among ``RESTRICTIONS``) and how it
    computes (``policy``, one of POLICIES, or a ``Policy`` stating parts of its arithmetic beyond the
    name's). A kernel declines a case it cannot take by raising ``Unsupported("why")``: skipped, counted
    by reason in ``CheckResult.skipped``. A case the suite draws in a
    dtype, layout, scheme, direction or placement the kernel does not
    declare is redrawn within its declaration (``redraw``; ``redraw_schemes``
    for the scheme alone, default ``redraw``), so a bf16-only kernel gets the
    suite's full count of cases; what no redraw can reach (a head_dim past
    its bound, multi-axis positions) is skipped and counted. Every judged case
    is judged per element against the budget of its policy. ``in_place=True``: the kernel rotates its q and
    k arguments and returns None. ``tensors="torch"`` hands it torch tensors on
    ``device``. ``case`` runs one case of the suite (what a reproduce line
    does). A built-in kernel (``builtin_kernel(name)``) declares its own.
    ``fused=KvCacheWrite(...)``: the kernel also writes k and v into a paged
    KV cache, and is called ``fn(q, k, positions, rope, kv)`` (see
    KvCacheWrite and KvCacheCall); the cache properties judge the write.

    Raises KernelContractError (a TypeError) when the kernel returns the
    wrong shape, dtype or number of results, ValueError for a bad option.
    """
    kname = _kernel_name(fn, name)
    declaration = _declaration(layouts=layouts, dtypes=dtypes, schemes=schemes, policy=policy, in_place=in_place,
                               inverse=inverse, partial_rotary=partial_rotary,
                               negative_positions=negative_positions, multi_axis=multi_axis,
                               max_position=max_position, restrictions=restrictions, tensors=tensors,
                               device=device, fused=fused)
    options = dict(layouts=list(layouts), dtypes=list(dtypes), schemes=list(schemes or []), policy=policy,
                   suite=suite, seed=int(seed), cases=cases, case=case, properties=list(properties or []),
                   in_place=in_place, inverse=inverse, partial_rotary=partial_rotary,
                   negative_positions=negative_positions, multi_axis=multi_axis, max_position=max_position,
                   restrictions=list(restrictions), tensors=tensors, device=device, redraw=bool(redraw),
                   redraw_schemes=bool(redraw if redraw_schemes is None else redraw_schemes), fused=fused)
    r = _core.check(fn, name=kname, declaration=declaration, suite=suite, seed=int(seed), cases=cases, case=case,
                    properties=list(properties or []), redraw=options["redraw"],
                    redraw_schemes=options["redraw_schemes"])
    shown = {k: v for k, v in options.items()
             if v not in (None, []) and not (k in ("tensors", "device") and v in ("numpy", "cpu"))
             and not (k == "redraw" and v is True) and not (k == "redraw_schemes" and v == options["redraw"])}
    failures = [Failure(case=f["case"], property=f["property"], family=f["family"], message=f["message"],
                        description=f["description"],
                        reproduce=_python_reproduce(getattr(fn, "__name__", kname), shown, f["case"], f["property"]),
                        cli_reproduce=f["cli_reproduce"]) for f in r["failures"]]
    return CheckResult(passed=r["passed"], suite=r["suite"], seed=r["seed"], cases=r["cases"], seconds=r["seconds"],
                       tables=r["tables"], families=r["families"], properties=r["properties"], failures=failures,
                       errors=list(r["errors"]), under_floor=[tuple(x) for x in r["under_floor"]],
                       redrawn=int(r["redrawn"]), position_ranges=dict(r["position_ranges"]),
                       skipped=dict(r["skipped"]), policy=str(r["policy"]))


def policies(fn: Kernel, *, policies: Optional[Sequence[Union[str, Policy]]] = None, **options: Any) -> PolicyTable:
    """Run ``fn`` under every catalogue policy (POLICIES, or the ``policies`` given) and return, per
    policy, pass or fail and the worst conformance error in that policy's budget units: which arithmetic the
    code matches. ``options`` are check()'s (its declaration, suite, seed, cases), ``policy`` and
    ``properties`` excepted: conformance alone is judged.

    The one to declare is the tightest passing policy (``PolicyTable.declare``): among the policies that
    pass, the one whose budgets the kernel's errors fill the most on average (the largest mean error /
    budget over every element judged; the worst element of each policy fills its own budget nearly whole,
    so the worst does not tell them apart), the earlier in catalogue order on a tie. A
    looser policy passes too, but its budgets are wider than the kernel's arithmetic needs, and a real bug
    (a rounding more, a wrong frequency by a few ulps) hides inside the slack; the tightest passing one
    leaves the least room for that (docs/PYTHON.md, "Which policy to declare")."""
    if "policy" in options or "properties" in options:
        raise TypeError("policies: policy and properties are what it varies; pass the rest of check()'s options")
    rows = PolicyTable()
    for p in (policies if policies is not None else POLICIES):
        label = p if isinstance(p, str) else repr(p)
        try:
            r = check(fn, policy=p, properties=["ConformsToReference"], **options)
        except ValueError as e:  # a policy the declaration cannot take (bf16 math on fp32 inputs, ...)
            rows.append(PolicyResult(label, None, None, 0, 0, str(e)))
            continue
        fam = [f for f in r.families.values() if f["cases"] > f["skipped"]]
        judged = sum(f["cases"] - f["skipped"] for f in fam)
        failed = sum(f["failed"] for f in fam)
        worst = max((f["worst_budget_units"] for f in fam), default=None)
        elements = sum(f["elements"] for f in fam)
        mean = sum(f["sum_budget_units"] for f in fam) / elements if elements else None
        rows.append(PolicyResult(label, r.passed, worst, judged, failed,
                                 "" if judged else "no case judged: " + "; ".join(r.skipped), mean))
    passing = [r for r in rows if r.passed and r.mean_budget_units is not None]
    # max keeps the first of equal keys: the catalogue lists the tighter policy first
    rows.declare = max(passing, key=lambda r: r.mean_budget_units).policy if passing else None
    return rows
