#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Ratios from one run of rope_bench (Google Benchmark JSON on stdin or a file):
each kernel's bytes/s over the copy, the in-place pass (the faster of its two
orders, rmw and rmw_tokens) and the in-place conversion (convert) of the same
shape, dtype and threads, the on-the-fly kernel over the cache kernel, and the
SIMD kernels' speedup over the scalar ones (1 thread). With repetitions, the
table holds medians, and the goals of bench/RESULTS.md are judged twice: on
the medians, and on each benchmark's fastest repetition (rope_bench's "min"
statistic: on a shared machine other work only slows a repetition, so the
fastest is the least disturbed, for kernels and baselines alike)."""
import json
import sys

data = json.load(open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin)
median, fastest = {}, {}
raw_time = {}
for b in data["benchmarks"]:
    name = b["run_name"] if "run_name" in b else b["name"]
    parts = name.split("/")
    impl, shape, dtype, threads = parts[:4]
    layout = parts[4] if len(parts) > 4 and not parts[4].startswith("real_time") else "-"
    key = (impl, shape, dtype, threads, layout)
    agg = b.get("aggregate_name") if b.get("run_type") == "aggregate" else None
    if agg is None or agg == "median":
        median[key] = b["bytes_per_second"]
        raw_time[key] = b["real_time"]
    elif agg == "min":
        fastest[key] = b["real_time"]
# The fastest repetition's bytes/s: the same bytes per iteration in less time.
best = {k: median[k] * raw_time[k] / fastest[k] for k in median if fastest.get(k)}

BASELINES = ("copy", "rmw", "rmw_tokens", "convert")


def fmt(x):
    return f"{x:.2f}" if x else "-"


def ratios(rows, key):
    impl, shape, dtype, threads, layout = key
    copy = rows.get(("copy", shape, dtype, threads, "-"))
    rmw = max(rows.get((o, shape, dtype, threads, "-"), 0) for o in ("rmw", "rmw_tokens")) or None
    conv = rows.get(("convert", shape, dtype, threads, "-"))
    cache = rows.get(("simd_cache", shape, dtype, threads, layout)) if impl == "simd_otf" else None
    return copy, rmw, conv, cache


def goals(rows):
    out = []
    for key, bps in sorted(rows.items()):
        impl, shape, dtype, threads, layout = key
        _, rmw, _, cache = ratios(rows, key)
        where = f"{shape} {dtype} {layout} {threads.split(':')[1]}t"
        if impl == "simd_cache" and rmw:
            out.append(("cache >= 0.9x in-place", where, bps / rmw, 0.9))
        if impl == "simd_otf" and cache:
            out.append(("on the fly >= 0.7x cache", where, bps / cache, 0.7))
    return out


def print_goals(gs):
    for goal in sorted({g[0] for g in gs}):
        mine = [g for g in gs if g[0] == goal]
        missed = [g for g in mine if g[2] < g[3]]
        worst = min(mine, key=lambda g: g[2])
        print(f"- {goal}: {len(mine) - len(missed)}/{len(mine)} rows met; lowest {worst[2]:.2f} ({worst[1]})")
        for g in missed:
            print(f"  - missed: {g[1]}: {g[2]:.2f}")


print("| kernel | shape | dtype | layout | threads | GB/s | copy GB/s | vs copy | in-place GB/s | vs in-place "
      "| convert GB/s | vs convert | vs simd_cache | vs scalar_cached |")
print("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for key, bps in sorted(median.items()):
    impl, shape, dtype, threads, layout = key
    if impl in BASELINES:
        continue
    copy, rmw, conv, cache = ratios(median, key)
    sc = median.get(("scalar_cached", shape, dtype, "threads:1", layout))
    print(f"| {impl} | {shape} | {dtype} | {layout} | {threads.split(':')[1]} | {bps/1e9:.2f} | "
          f"{fmt(copy and copy/1e9)} | {fmt(copy and bps/copy)} | {fmt(rmw and rmw/1e9)} | {fmt(rmw and bps/rmw)} | "
          f"{fmt(conv and conv/1e9)} | {fmt(conv and bps/conv)} | "
          f"{fmt(cache and bps/cache)} | {fmt(sc and bps/sc)} |")

print()
print("Goals on the medians:")
print_goals(goals(median))
if best:
    print()
    print("Goals on each benchmark's fastest repetition:")
    print_goals(goals(best))

# The fused KV-cache write (rope_bench's impl.cache rows): time per call
# against the rotation alone (simd_cache, same shape, dtype, threads) and
# against the scalar fused kernel of the same cache dtype on one thread.
UNIT_US = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
us = {}
for b in data["benchmarks"]:
    name = b["run_name"] if "run_name" in b else b["name"]
    if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
        continue
    parts = name.split("/")
    layout = parts[4] if len(parts) > 4 and not parts[4].startswith("real_time") else "-"
    us[(parts[0], parts[1], parts[2], parts[3], layout)] = b["real_time"] * UNIT_US[b.get("time_unit", "ns")]
fused = sorted(k for k in us if "." in k[0])
if fused:
    print()
    print("| fused kernel | cache | shape | dtype | threads | us per call | simd_cache us | vs simd_cache "
          "| scalar fused us (1 thread) | speedup over it |")
    print("|---|---|---|---|---:|---:|---:|---:|---:|---:|")
    for key in fused:
        impl, shape, dtype, threads, layout = key
        kernel, cache = impl.split(".", 1)
        t = us[key]
        rot = us.get(("simd_cache", shape, dtype, threads, layout))
        scalar = us.get(("scalar_fused_kv_vllm." + cache, shape, dtype, "threads:1", layout))
        print(f"| {kernel} | {cache} | {shape} | {dtype} | {threads.split(':')[1]} | {t:.1f} | {fmt(rot)} | "
              f"{fmt(rot and t / rot)} | {fmt(scalar)} | {fmt(scalar and scalar / t)} |")
