#!/usr/bin/env python3
"""Ratios from one run of rope_bench (Google Benchmark JSON on stdin or a file):
each kernel's bytes/s over the copy, the in-place pass (the faster of its two
orders, rmw and rmw_tokens) and the in-place conversion (convert) of the same
shape, dtype and threads, the on-the-fly kernel over the cache kernel, and the
SIMD kernels' speedup over the scalar ones (1 thread). Medians when the run
has repetitions. Ends with the goals of bench/RESULTS.md, met or not."""
import json
import sys

data = json.load(open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin)
rows = {}
for b in data["benchmarks"]:
    if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
        continue
    name = b["run_name"] if "run_name" in b else b["name"]
    parts = name.split("/")
    impl, shape, dtype, threads = parts[:4]
    layout = parts[4] if len(parts) > 4 and not parts[4].startswith("real_time") else "-"
    rows[(impl, shape, dtype, threads, layout)] = b["bytes_per_second"]


def fmt(x):
    return f"{x:.2f}" if x else "-"


BASELINES = ("copy", "rmw", "rmw_tokens", "convert")

print("| kernel | shape | dtype | layout | threads | GB/s | copy GB/s | vs copy | in-place GB/s | vs in-place "
      "| convert GB/s | vs convert | vs simd_cache | vs scalar_cached |")
print("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
goals = []
for (impl, shape, dtype, threads, layout), bps in sorted(rows.items()):
    if impl in BASELINES:
        continue
    copy = rows.get(("copy", shape, dtype, threads, "-"))
    rmw = max(rows.get((o, shape, dtype, threads, "-"), 0) for o in ("rmw", "rmw_tokens")) or None
    conv = rows.get(("convert", shape, dtype, threads, "-"))
    cache = rows.get(("simd_cache", shape, dtype, threads, layout)) if impl == "simd_otf" else None
    sc = rows.get(("scalar_cached", shape, dtype, "threads:1", layout))
    print(f"| {impl} | {shape} | {dtype} | {layout} | {threads.split(':')[1]} | {bps/1e9:.2f} | "
          f"{fmt(copy and copy/1e9)} | {fmt(copy and bps/copy)} | {fmt(rmw and rmw/1e9)} | {fmt(rmw and bps/rmw)} | "
          f"{fmt(conv and conv/1e9)} | {fmt(conv and bps/conv)} | "
          f"{fmt(cache and bps/cache)} | {fmt(sc and bps/sc)} |")
    where = f"{shape} {dtype} {layout} {threads.split(':')[1]}t"
    if impl == "simd_cache" and rmw:
        goals.append(("cache >= 0.9x in-place", where, bps / rmw, 0.9))
    if impl == "simd_otf" and cache:
        goals.append(("on the fly >= 0.7x cache", where, bps / cache, 0.7))

print()
for goal in sorted({g[0] for g in goals}):
    mine = [g for g in goals if g[0] == goal]
    missed = [g for g in mine if g[2] < g[3]]
    worst = min(mine, key=lambda g: g[2])
    print(f"- {goal}: {len(mine) - len(missed)}/{len(mine)} rows met; lowest {worst[2]:.2f} ({worst[1]})")
    for g in missed:
        print(f"  - missed: {g[1]}: {g[2]:.2f}")
