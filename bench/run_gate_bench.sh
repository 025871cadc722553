#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Before/after figures for the gate's own speed (bench/RESULTS.md, "Gate
# speed"), every "before" measured in the same run from a build of the
# baseline commit: the reference per element, the quick gate over the
# built-in kernels (isolated and in process; this tree's isolated rows use
# its default, a worker per implementation, and it is also run with a child
# per call), the standard suite, the
# differential fuzzer's executions/s against simd_cache, and the profile's
# top entries after. Take figures only on a quiet machine (the script
# prints `uptime` before each measurement).
#
# usage: bench/run_gate_bench.sh [BASELINE_DIR]
#   BASELINE_DIR (default /tmp/ropecheck-baseline-<commit>): a tree of the
#   baseline commit (ROPECHECK_BASELINE_COMMIT, default 3087880); made with
#   git archive when absent; its release and fuzz presets are built here.
#   Raw outputs go to $ROPECHECK_BENCH_OUT (default /tmp/ropecheck-bench).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
commit=${ROPECHECK_BASELINE_COMMIT:-3087880}
base=${1:-/tmp/ropecheck-baseline-$commit}
out=${ROPECHECK_BENCH_OUT:-/tmp/ropecheck-bench}
jobs=${CMAKE_BUILD_PARALLEL_LEVEL:-2}
mkdir -p "$out"

if [ ! -f "$base/CMakePresets.json" ]; then
  mkdir -p "$base"
  git -C "$here" archive "$commit" | tar -x -C "$base"
fi
build() {  # tree preset targets...
  local tree=$1 preset=$2
  shift 2
  (cd "$tree" && cmake --preset "$preset" > /dev/null && cmake --build --preset "$preset" -j "$jobs" --target "$@" > /dev/null)
}
build "$base" release ropecheck ropecheck_core
build "$base" fuzz differential_fuzzer
build "$here" release ropecheck reference_bench
build "$here" fuzz differential_fuzzer
# The same benchmark source against the baseline's libraries ("today").
g++ -std=c++20 -O2 -I"$base" -I"$base/include" "$here/bench/reference_bench.cc" -o "$out/reference_bench_baseline" \
  "$base/build/release/core/libropecheck_core.a" "$base/build/release/reference/libropecheck_reference.a" \
  -lmpfr -lgmp -lpthread

old="$base/build/release/ropecheck"
new="$here/build/release/ropecheck"
TIMEFORMAT=%R
seconds() {  # name command...: wall seconds of one run, output kept in $out/name.txt
  local name=$1
  shift
  echo "  [$(uptime | sed 's/.*load average: //')] $name" >&2
  { time "$@" > "$out/$name.txt" 2>&1 || true; } 2>&1 | tail -1
}
ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }

echo "== reference per element (thread CPU time, best of 3, seed 1)" >&2
ref_row() {  # suite
  local before after mpfr
  before=$("$out/reference_bench_baseline" --suite "$1" | sed 's/.*ns_per_element //')
  after=$("$here/build/release/bench/reference_bench" --suite "$1" | sed 's/.*ns_per_element //')
  mpfr=$(ROPECHECK_REFERENCE=mpfr "$here/build/release/bench/reference_bench" --suite "$1" | sed 's/.*ns_per_element //')
  echo "| reference, $1 suite, ns per element | $before | $after | $(ratio "$before" "$after")x (this tree's MPFR path: $mpfr) |"
}
rows=()
rows+=("$(ref_row standard)")
rows+=("$(ref_row quick)")

echo "== gate" >&2
declare -A B A
gate_row() {  # label name args...: fills B[name], A[name]
  local label=$1 name=$2
  shift 2
  B[$name]=$(seconds "before_$name" "$old" check --quiet "$@")
  A[$name]=$(seconds "after_$name" "$new" check --quiet "$@")
  rows+=("| $label | ${B[$name]} s | ${A[$name]} s | $(ratio "${B[$name]}" "${A[$name]}")x |")
}
gate_row "quick gate, 6 built-in kernels, isolated" quick_isolated
gate_row "quick gate, 6 built-in kernels, in process" quick_in_process --no-isolation
gate_row "quick suite, scalar_naive, isolated" naive_isolated --impl scalar_naive
gate_row "quick suite, scalar_naive, in process" naive_in_process --impl scalar_naive --no-isolation
gate_row "standard suite, 6 built-in kernels, isolated" standard_isolated --suite standard
# The isolated rows above run the default mode: a persistent worker per
# implementation since issue #18 (the baseline forks a child per call).
# This tree's child per call, for the same comparison within one build:
fork_q=$(seconds after_quick_isolated_fork "$new" check --quiet --isolation fork)
jobs2=$(seconds after_quick_isolated_jobs2 "$new" check --quiet --jobs 2)
jobs2s=$(seconds after_standard_isolated_jobs2 "$new" check --quiet --suite standard --jobs 2)

echo "== differential fuzzer, simd_cache, 60 s" >&2
fuzz_rate() {  # tree
  local d
  d=$(mktemp -d)
  (cd "$d" && ROPECHECK_FUZZ_IMPL=simd_cache "$1/build/fuzz/fuzz/differential_fuzzer" -max_total_time=60 \
     -print_final_stats=1 > "$out/fuzz_$(basename "$1").txt" 2>&1 || true)
  rm -rf "$d"
  sed -n 's/.*exec\/s: \([0-9]*\).*/\1/p' "$out/fuzz_$(basename "$1").txt" | tail -1
}
fb=$(fuzz_rate "$base")
fa=$(fuzz_rate "$here")
rows+=("| differential fuzzer vs simd_cache, executions/s | $fb | $fa | $(ratio "$fa" "$fb")x |")

echo "== profile after: quick gate, 6 built-in kernels, in process" >&2
perf record -q -o "$out/perf.data" "$new" check --quiet --no-isolation > /dev/null 2>&1 || true
perf report -i "$out/perf.data" --no-children --percent-limit 1.5 --stdio 2> /dev/null |
  grep -E '^ +[0-9]' | head -20 > "$out/profile.txt" || true

echo
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; date: $(date -u +%F); baseline $commit"
echo
echo "| what | before ($commit) | after | after vs before |"
echo "|---|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
echo
echo "after, --jobs 2: quick gate isolated $jobs2 s, standard suite isolated $jobs2s s"
echo "after, --isolation fork (a child per call): quick gate $fork_q s," \
  "$(ratio "$fork_q" "${A[quick_in_process]}")x in process"
echo "isolation overhead (isolated / in process): quick gate before $(ratio "${B[quick_isolated]}" "${B[quick_in_process]}")x," \
  "after $(ratio "${A[quick_isolated]}" "${A[quick_in_process]}")x; scalar_naive before" \
  "$(ratio "${B[naive_isolated]}" "${B[naive_in_process]}")x, after $(ratio "${A[naive_isolated]}" "${A[naive_in_process]}")x"
echo
echo "profile after (perf, quick gate in process, self time >= 1.5%):"
cat "$out/profile.txt"
