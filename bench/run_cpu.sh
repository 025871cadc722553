#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds and runs the CPU benchmark, then prints the ratio table that goes
# into bench/RESULTS.md, with the load average before and after the run (a
# figure taken while the 1-minute load is above ~1 on this 2-core machine is
# not a figure to report). Usage: bench/run_cpu.sh [extra benchmark flags]
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release > /dev/null
cmake --build --preset release --target rope_bench
out=$(mktemp)
before=$(cut -d' ' -f1-3 /proc/loadavg)
./build/release/bench/rope_bench --benchmark_repetitions=10 --benchmark_report_aggregates_only=true \
  --benchmark_min_time=0.1 --benchmark_enable_random_interleaving=true --benchmark_out="$out" --benchmark_out_format=json "$@"
after=$(cut -d' ' -f1-3 /proc/loadavg)
echo
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; date: $(date -u +%F); load before: $before; after: $after"
echo "raw results (Google Benchmark JSON): $out"
python3 bench/cpu_report.py "$out"
