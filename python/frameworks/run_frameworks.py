#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs ropecheck.check on every framework row and writes one JSON per row.

    PYTHONPATH=build/release/python /usr/bin/python3 python/frameworks/run_frameworks.py --out DIR

Runs under the interpreter the ropecheck module is built for (Debian's
python3, numpy 1.24); each row's framework runs in a worker of its venv
(proxy.py, worker.py; venvs from install.sh under --venvs). A row is judged by
the policy its adapter declares, on the quick suite (seed 1) unless the row
bounds its case count (a slow interpreter) or names the standard suite (a row
whose declared bounds leave few quick cases). make_table.py turns DIR into
docs/FRAMEWORKS.md.
"""
import argparse
import json
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ropecheck  # noqa: E402

import plugin_runner  # noqa: E402
import proxy  # noqa: E402
from rows import ADAPTERS, all_rows  # noqa: E402

# A row's kernel raises this (by name) for a case its framework cannot take by construction (a position
# beyond vLLM's cache rows); ropecheck has no capability to declare it, so such cases are counted apart.
REFUSAL = "the kernel raised CaseOutsideFramework"


def fmt(v):
    """A number as the table writes it: three decimals, or two significant ones in e-notation far from 1."""
    if math.isinf(v):
        return "inf"
    return ("%.2e" if v != 0 and (abs(v) < 1e-3 or abs(v) >= 1e5) else "%.3f") % v


def position_ranges(result):
    """The worst conformance error per position range (CheckResult.position_ranges), as {range: text}."""
    return {name: f"{fmt(b['worst_budget_units'])} budget, {fmt(b['worst_ulps'])} ulp"
            for name, b in result.position_ranges.items() if b["elements"] > 0}


def declared_policy(row):
    """The row's policy for ropecheck.check: a name, or a dict of ropecheck.Policy's fields (a named policy
    with parts stated or taken back: the rows "without" a part)."""
    p = row["policy"]
    return p if isinstance(p, str) else ropecheck.Policy(**p)


def summarize(row, result, version, seconds):
    fams = result.families
    judged = sum(f["cases"] - f["skipped"] for f in fams.values())
    worst = max((f["worst_budget_units"] for f in fams.values() if f["cases"] > f["skipped"]), default=None)
    ulps = max((f["worst_ulps"] for f in fams.values() if f["cases"] > f["skipped"]), default=None)
    # a case is refused when every failure it has is the framework's refusal (a case with a numeric failure
    # besides is a failure: the refusal must not hide it)
    failed_any = {f.case for f in result.failures}
    refused = sorted(c for c in failed_any if all(REFUSAL in f.message for f in result.failures if f.case == c))
    numeric = [f for f in result.failures if f.case not in refused]
    return {
        "id": row["id"], "framework": row["framework"], "variant": row["variant"], "version": version,
        "dtypes": row["dtypes"], "layouts": row["layouts"], "schemes": row["schemes"], "policy": row["policy"],
        "suite": result.suite, "seed": result.seed, "case_bound": row.get("cases"),
        "cases_judged": judged, "cases_refused": len(refused),
        "failed_cases": sorted({f.case for f in numeric}),
        "families": {k: v for k, v in fams.items() if v["cases"] > v["skipped"]},
        "worst_budget_units": worst, "worst_ulps": ulps,
        "position_ranges": position_ranges(result),
        "failures": [dict(case=f.case, property=f.property, family=f.family, message=f.message[:400],
                          reproduce=f.reproduce, cli_reproduce=f.cli_reproduce) for f in numeric[:20]],
        "failed_properties": sorted({f.property for f in numeric}),
        "failed_families": sorted({f.family for f in numeric}),
        "refused_example": next((f.message[:300] for f in result.failures if REFUSAL in f.message), None),
        "expect": row.get("expect"), "without": row.get("without"), "passed": result.passed,
        "seconds": round(seconds, 1), "errors": result.errors[:3],
        "under_floor": [list(u) for u in result.under_floor],
        # conformance skips by reason, the kernel's declines ("declined by the kernel: ...") among them
        "skipped": result.skipped,
    }


def not_run(row, version, seconds):
    """A row the framework cannot run here: its declaration and why, nothing judged."""
    return {"id": row["id"], "framework": row["framework"], "variant": row["variant"], "version": version,
            "dtypes": row["dtypes"], "layouts": row["layouts"], "schemes": row["schemes"], "policy": row["policy"],
            "not_run": row["not_run"], "cases_judged": 0, "cases_refused": 0, "failed_cases": [], "failures": [],
            "worst_budget_units": None, "worst_ulps": None, "position_ranges": {}, "expect": row.get("expect"),
            "passed": None, "seconds": round(seconds, 1), "errors": []}


def run_row(adapter, row, venvs):
    if row.get("plugin"):  # a framework's code built as a plugin: the ropecheck command judges it
        return plugin_runner.run_row(row, venvs)
    python = os.path.join(venvs, row["venv"], "bin", "python")
    if not os.path.exists(python):
        raise SystemExit(f"run_frameworks: no venv {python}: run python/frameworks/install.sh "
                         f"(scripts/setup.sh --frameworks)")
    env = dict(row.get("env") or {})
    if row.get("layer"):  # a published bug's release, layered on the venv (published_bugs/bugs.py)
        env["PYTHONPATH"] = os.path.join(venvs, "layers", row["layer"])
        if not os.path.exists(os.path.join(env["PYTHONPATH"], ".ropecheck-stamp")):
            # without it the venv's own release would be judged under the row's name
            raise SystemExit(f"run_frameworks: no layer {env['PYTHONPATH']}: run python/frameworks/install.sh")
    t0 = time.monotonic()
    kernel = proxy.FrameworkKernel(adapter, row, python, env=env)
    if row.get("not_run"):  # the worker started (the version is the framework's own); nothing to judge
        kernel.close()
        return not_run(row, kernel.version, time.monotonic() - t0)
    try:
        result = ropecheck.check(kernel, name=row["id"], layouts=row["layouts"], dtypes=row["dtypes"],
                                 schemes=row["schemes"], policy=declared_policy(row), suite=row.get("suite", "quick"),
                                 seed=1,
                                 cases=row.get("cases"), inverse=row["inverse"],
                                 partial_rotary=row["partial_rotary"], negative_positions=row["negative_positions"],
                                 multi_axis=row.get("multi_axis", False), max_position=row.get("max_position"),
                                 restrictions=row.get("restrictions", ()), case=row.get("case"),
                                 properties=row.get("properties"),
                                 # A framework's rows split it by dtype and layout: together they judge the suite's
                                 # cases once, each row its own dtype's and layout's (no redraw). A published bug's
                                 # row stands alone: its cases are redrawn within its declaration.
                                 redraw=row.get("redraw", False))
    finally:
        kernel.close()
    return summarize(row, result, kernel.version, time.monotonic() - t0)


def canary():
    """The module must read numpy arrays right under this interpreter (a module built against numpy 1.x reads
    numpy 2 arrays as garbage): a built-in kernel known to pass must pass here first."""
    r = ropecheck.check(ropecheck.builtin_kernel("scalar_naive"), dtypes=["f32"], schemes=["default"], cases=40)
    if not r.passed:
        raise SystemExit("run_frameworks: the built-in scalar_naive fails under this interpreter; the ropecheck "
                         "module does not read this numpy's arrays right (numpy " + __import__("numpy").__version__
                         + "). Run it with the python3 the module was built for.")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="directory for the per-row JSON results")
    ap.add_argument("--venvs", default=os.environ.get("ROPECHECK_FRAMEWORKS_VENVS",
                                                      os.path.join(HERE, "..", "..", "build", "frameworks")))
    ap.add_argument("--only", action="append", default=[], help="row id (or prefix) to run; repeatable")
    args = ap.parse_args()
    canary()
    os.makedirs(args.out, exist_ok=True)
    total = time.monotonic()
    for adapter, row in all_rows():
        if args.only and not any(row["id"].startswith(o) for o in args.only):
            continue
        res = run_row(adapter, row, args.venvs)
        with open(os.path.join(args.out, row["id"] + ".json"), "w", encoding="utf-8") as f:
            json.dump(res, f, indent=1, sort_keys=True)
        verdict = "not run" if res["passed"] is None else "pass" if res["passed"] else "FAIL"
        print(f"{row['id']:40s} {verdict:7s} judged {res['cases_judged']:4d} "
              f"refused {res['cases_refused']:3d} worst/budget {res['worst_budget_units']} {res['seconds']} s",
              flush=True)
    proxy.close_all()
    print(f"run_frameworks: {time.monotonic() - total:.0f} s")


if __name__ == "__main__":
    main()
