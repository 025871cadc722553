# SPDX-License-Identifier: MIT
"""What check(), policies() and fuzz() return (this file: _results.py): verdicts, failures and their reproduce lines."""
from __future__ import annotations

import dataclasses
from typing import Any, Optional


@dataclasses.dataclass(frozen=True)
class Failure:
    """One failing (case, property) with the line that reproduces exactly it."""

    case: int
    property: str
    family: str
    message: str
    description: str
    reproduce: str
    cli_reproduce: str

    def __str__(self) -> str:
        return (f"FAIL {self.property} case {self.case} ({self.family}): {self.message}\n"
                f"  case: {self.description}\n  reproduce: {self.reproduce}")


@dataclasses.dataclass(frozen=True)
class CheckResult:
    """The gate's verdict on one kernel: the same tables the CLI prints."""

    passed: bool
    suite: str
    seed: int
    cases: int
    seconds: float
    tables: str
    families: dict[str, dict[str, Any]]
    properties: dict[str, dict[str, Any]]
    failures: list[Failure]
    #: Tracebacks of the calls in which the kernel raised (each is also a failing case).
    errors: list[str]
    #: (property, why) for each property judged on fewer cases than the verdict floor: the verdict
    #: fails with no failing case (a kernel declaring so little that the suite's cases cannot reach it).
    under_floor: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    #: Cases drawn outside the kernel's declaration (dtypes, layouts, schemes, position ranges...) and redrawn within it.
    redrawn: int = 0
    #: Conformance per position range ("<2^10", "2^10..2^16", "2^16..2^20", ">=2^20"): the elements judged,
    #: the worst error in budget units and in ulps of the storage dtype.
    position_ranges: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    #: Conformance cases skipped, by reason: "outside capabilities: ..." (what the kernel declares) and
    #: "declined by the kernel: ..." (a ropecheck.Unsupported it raised).
    skipped: dict[str, int] = dataclasses.field(default_factory=dict)
    #: The declared policy in one line, as ``ropecheck list`` prints it.
    policy: str = ""

    def __bool__(self) -> bool:
        return self.passed

    def failure_report(self, limit: int = 10) -> str:
        """The failing cases with their reproduce lines (worst first is not implied: case order)."""
        if self.passed:
            return "ropecheck: every case passed"
        lines = [f"FAIL {prop}: {why}" for prop, why in self.under_floor]
        lines += [str(f) for f in self.failures[:limit]]
        if len(self.failures) > limit:
            lines.append(f"... {len(self.failures) - limit} more failure(s)")
        if self.errors:
            lines.append("first traceback from the kernel:\n" + self.errors[0])
        return "\n".join(lines)

    def raise_for_failure(self) -> None:
        """AssertionError with the failure report when any case failed."""
        if not self.passed:
            raise AssertionError(self.failure_report())


@dataclasses.dataclass(frozen=True)
class PolicyResult:
    """One policy's verdict on a kernel (``policies``): the kernel's worst conformance error in that policy's
    budget units (pass <= 1), the cases judged, and why the policy could not be tried, if so."""

    policy: str
    passed: Optional[bool]
    worst_budget_units: Optional[float]
    judged: int
    failed: int
    why_not: str = ""
    #: The mean error / budget over every element judged: how much of this policy's budgets the kernel fills.
    mean_budget_units: Optional[float] = None


class PolicyTable(list):
    """``policies``' rows, in catalogue order, with ``declare``: the policy to declare (see ``policies``)."""

    declare: Optional[str] = None

    def __str__(self) -> str:
        lines = ["| policy | verdict | judged | failed | worst error / budget | mean error / budget |",
                 "|---|---|---:|---:|---:|---:|"]
        for r in self:
            verdict = ("not tried: " + r.why_not) if r.passed is None else ("pass" if r.passed else "FAIL")
            if r.policy == self.declare:
                verdict += " (declare this one)"
            worst = "-" if r.worst_budget_units is None else f"{r.worst_budget_units:.4g}"
            mean = "-" if r.mean_budget_units is None else f"{r.mean_budget_units:.4g}"
            lines.append(f"| {r.policy} | {verdict} | {r.judged} | {r.failed} | {worst} | {mean} |")
        return "\n".join(lines)


@dataclasses.dataclass(frozen=True)
class FuzzResult:
    """What a fuzzing run found: nothing, or the first failing case (saved under ``path``)."""

    executions: int
    seconds: float
    failure: Optional[Failure]
    path: Optional[str]

    def __bool__(self) -> bool:
        return self.failure is None
