#!/usr/bin/env bash
# Builds and runs the CPU benchmark, then prints the ratio table that goes
# into bench/RESULTS.md. Usage: bench/run_cpu.sh [extra benchmark flags]
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release > /dev/null
cmake --build --preset release --target rope_bench
out=$(mktemp)
./build/release/bench/rope_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  --benchmark_min_time=0.3 --benchmark_out="$out" --benchmark_out_format=json "$@"
echo
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; date: $(date -u +%F)"
python3 bench/cpu_report.py "$out"
