#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ropecheck bench` beside bench/rope_bench on the same shapes, kernels and
# machine (issue #35): for each step and dtype in turn, rope_bench's rows
# (copy, the buffer-order in-place pass, simd_cache and simd_otf at one
# thread; 10 repetitions interleaved at random) and then ropecheck bench's
# (the same model, bench/rope_bench_shape.json; 10 timed calls a series,
# interleaved at random), so both see the same load; then
# bench/bench_vs_rope_bench.py prints the two ratios of each row side by
# side with their noise. Usage: bench/bench_vs_rope_bench.sh [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-$(mktemp -d)}
mkdir -p "$out"
cmake --preset release >/dev/null
cmake --build --preset release --target rope_bench ropecheck >/dev/null
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; date: $(date -u +%F); load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for step in prefill decode; do
  for dt in f32 f16 bf16; do
    ./build/release/bench/rope_bench --benchmark_repetitions=10 --benchmark_min_time=0.1 \
      --benchmark_enable_random_interleaving=true \
      --benchmark_filter="^(copy|rmw|simd_cache|simd_otf)/$step/$dt/threads:1(/[a-z_]+)?/real_time\$" \
      --benchmark_out="$out/rope_bench_${step}_$dt.json" --benchmark_out_format=json >/dev/null
    ./build/release/ropecheck bench --impl simd_cache --impl simd_otf --config bench/rope_bench_shape.json \
      --step "$step" --dtype "$dt" --repetitions 10 --quiet --json "$out/bench_${step}_$dt.json" >/dev/null
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg); raw results: $out"
python3 bench/bench_vs_rope_bench.py "$out"
