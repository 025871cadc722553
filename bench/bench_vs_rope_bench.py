#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The rows of bench/bench_vs_rope_bench.sh side by side: for each kernel,
step, dtype and layout, its rate over the copy and over the in-place pass
(the buffer-order one, which both tools run) as rope_bench measured them (the
medians of its repetitions) and as `ropecheck bench` did (the medians of its
timed calls), with each ratio's noise: the relative interquartile ranges of
the kernel's and the baseline's times added in quadrature (rope_bench's from
its repetitions, ropecheck bench's from its calls). A row agrees when the two
ratios differ by less than their two noises added in quadrature.
Usage: bench_vs_rope_bench.py DIR"""
import glob
import json
import math
import os
import statistics
import sys


def quartiles(xs):
    s = sorted(xs)
    def q(p):  # numpy's default (Hyndman and Fan's definition 7), as speed/timing_stats.cc
        h = p * (len(s) - 1)
        lo = math.floor(h)
        hi = min(lo + 1, len(s) - 1)
        return s[lo] + (h - lo) * (s[hi] - s[lo])
    return q(0.25), q(0.5), q(0.75)


def rel_iqr(xs):
    q1, med, q3 = quartiles(xs)
    return (q3 - q1) / med


def rope_bench_rows(path):
    """name -> (bytes per iteration, [seconds per iteration of each repetition])"""
    rows = {}
    for b in json.load(open(path))["benchmarks"]:
        if b.get("run_type") == "aggregate":
            continue
        name = b["run_name"]
        sec = b["real_time"] * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
        rows.setdefault(name, [b["bytes_per_second"] * sec, []])[1].append(sec)
    return rows


def ratio_and_noise(kernel, base):
    """rate ratio at the medians, and its noise (relative)"""
    (kb, kt), (bb, bt) = kernel, base
    r = (kb / statistics.median(kt)) / (bb / statistics.median(bt))
    return r, math.hypot(rel_iqr(kt), rel_iqr(bt))


def main():
    d = sys.argv[1]
    print("| kernel | step | dtype | layout | vs copy: rope_bench | ropecheck bench | vs in-place: rope_bench | "
          "ropecheck bench | agree |")
    print("|---|---|---|---|---:|---:|---:|---:|---|")
    agree = total = 0
    for path in sorted(glob.glob(os.path.join(d, "bench_*.json"))):
        step, dt = os.path.basename(path)[len("bench_"):-len(".json")].split("_")
        rb = rope_bench_rows(os.path.join(d, f"rope_bench_{step}_{dt}.json"))
        for row in json.load(open(path))["bench"]["rows"]:
            if row["status"] != "timed":
                print(f"| {row['implementation']} | {step} | {dt} | {row['layout']} | {row['status']}: {row['reason']} |")
                continue
            mine = {s: (row[s]["bytes"], row[s]["seconds"]) for s in ("kernel", "copy", "rmw")}
            tag = f"{step}/{dt}/threads:1"
            theirs = {"kernel": rb[f"{row['implementation']}/{tag}/{row['layout']}/real_time"],
                      "copy": rb[f"copy/{tag}/real_time"], "rmw": rb[f"rmw/{tag}/real_time"]}
            cells, ok = [], True
            for base in ("copy", "rmw"):
                r1, n1 = ratio_and_noise(theirs["kernel"], theirs[base])
                r2, n2 = ratio_and_noise(mine["kernel"], mine[base])
                ok = ok and abs(r1 - r2) <= max(r1, r2) * math.hypot(n1, n2)
                cells += [f"{r1:.2f} +-{n1 * 100:.0f}%", f"{r2:.2f} +-{n2 * 100:.0f}%"]
            total += 1
            agree += ok
            print(f"| {row['implementation']} | {step} | {dt} | {row['layout']} | " + " | ".join(cells) +
                  f" | {'yes' if ok else 'NO'} |")
    print(f"\n{agree} of {total} rows agree within the noise")


if __name__ == "__main__":
    main()
