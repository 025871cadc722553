#!/usr/bin/env python3
"""Ratios from one run of rope_bench (Google Benchmark JSON on stdin or a file):
each kernel's bytes/s over the copy of the same shape, dtype and threads, and
the SIMD kernels' speedup over the scalar ones (1 thread)."""
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

print("| kernel | shape | dtype | layout | threads | GB/s | copy GB/s | vs copy | in-place rmw GB/s | vs rmw | vs scalar_cached | vs scalar_naive |")
print("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for (impl, shape, dtype, threads, layout), bps in sorted(rows.items()):
    if impl in ("copy", "rmw"):
        continue
    copy = rows.get(("copy", shape, dtype, threads, "-"))
    rmw = rows.get(("rmw", shape, dtype, threads, "-"))
    sc = rows.get(("scalar_cached", shape, dtype, "threads:1", layout))
    sn = rows.get(("scalar_naive", shape, dtype, "threads:1", layout))
    fmt = lambda x: f"{x:.2f}" if x else "-"
    print(f"| {impl} | {shape} | {dtype} | {layout} | {threads.split(':')[1]} | {bps/1e9:.2f} | "
          f"{fmt(copy and copy/1e9)} | {fmt(copy and bps/copy)} | {fmt(rmw and rmw/1e9)} | {fmt(rmw and bps/rmw)} | "
          f"{fmt(sc and bps/sc)} | {fmt(sn and bps/sn)} |")
