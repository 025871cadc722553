#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs ropecheck.check on both releases of every published bug (bugs.py) and
writes one JSON per row, the framework rows' runner doing each
(run_frameworks.run_row: a worker of the [main] venv with the release's layer).

    PYTHONPATH=build/release/python /usr/bin/python3 python/frameworks/published_bugs/run_bugs.py --out DIR

--only ROW reruns one row; with --case N --property P it reruns exactly one
case and property of it (the line the table prints under each FAIL).
make_bug_table.py turns DIR into docs/FRAMEWORKS.md's section and README's line.
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import proxy  # noqa: E402
import run_frameworks  # noqa: E402
from published_bugs import bugs  # noqa: E402


def reproduce_line(row_id, failure):
    """The command that reruns exactly one failing case and property of a row."""
    return (f"PYTHONPATH=build/release/python python3 python/frameworks/published_bugs/run_bugs.py --out /tmp/bug "
            f"--only {row_id} --case {failure['case']} --property {failure['property']}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="directory for the per-row JSON results")
    ap.add_argument("--venvs", default=os.environ.get("ROPECHECK_FRAMEWORKS_VENVS",
                                                      os.path.join(HERE, "..", "..", "..", "build", "frameworks")))
    ap.add_argument("--only", action="append", default=[], help="row id (or prefix) to run; repeatable")
    ap.add_argument("--case", type=int, help="with --only: this case of the suite only")
    ap.add_argument("--property", help="with --only: this property only")
    args = ap.parse_args()
    run_frameworks.canary()
    os.makedirs(args.out, exist_ok=True)
    total = time.monotonic()
    for adapter, row in bugs.all_rows():
        if args.only and not any(row["id"].startswith(o) for o in args.only):
            continue
        if args.case is not None:
            row = dict(row, case=args.case)
        if args.property:
            row = dict(row, properties=[args.property])
        res = run_frameworks.run_row(adapter, row, args.venvs)
        if f"{row['framework']} {row['release']}" not in res["version"]:
            # the release judged must be the row's, never another the interpreter found first
            raise SystemExit(f"run_bugs: {row['id']} ran {res['version']!r}, not {row['framework']} {row['release']}")
        for f in res["failures"]:
            f["runner_reproduce"] = reproduce_line(row["id"], f)
        with open(os.path.join(args.out, row["id"] + ".json"), "w", encoding="utf-8") as f:
            json.dump(res, f, indent=1, sort_keys=True)
        verdict = "pass" if res["passed"] else "FAIL"
        print(f"{row['id']:52s} {verdict:5s} judged {res['cases_judged']:4d} worst/budget "
              f"{res['worst_budget_units']} {res['seconds']} s", flush=True)
        for f in res["failures"][:1]:
            print(f"  {f['message'].splitlines()[0][:400]}\n  reproduce: {f['runner_reproduce']}", flush=True)
    proxy.close_all()
    print(f"run_bugs: {time.monotonic() - total:.0f} s")


if __name__ == "__main__":
    main()
