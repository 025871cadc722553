#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The quick gate's own time, two builds in the same run (bench/RESULTS.md,
# "Gate speed: the judge's path"): `ropecheck check --quiet` with each set of
# options, the BEFORE and the AFTER binary one after the other, ROUNDS
# rounds interleaved so that load on a shared machine falls on both alike.
# Prints each run's wall and CPU seconds (every process of the run, workers
# included) and the load before it, then per set the medians and
# after / before. bench/run_gate_bench.sh is the fuller comparison (reference,
# standard suite, fuzzer); this one is the gate alone, in minutes.
#
# usage: bench/gate_speed.sh BEFORE AFTER [ROUNDS]
#   BEFORE, AFTER: ropecheck binaries (e.g. a build of the base commit, and
#   build/release/ropecheck); ROUNDS default 3. The option sets are
#   "" (the defaults: a job per core), "--jobs 1" and "--no-isolation".
set -euo pipefail
before=$1 after=$2 rounds=${3:-3}
sets=("" "--jobs 1" "--no-isolation")
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
declare -A wall cpu
for ((r = 1; r <= rounds; ++r)); do
  for s in "${sets[@]}"; do
    for which in before after; do
      bin=$before
      [[ $which == after ]] && bin=$after
      load=$(cut -d' ' -f1 /proc/loadavg)
      read -r -a flags <<<"$s"
      /usr/bin/time -o "$tmp" -f "%e %U %S" "$bin" check --quiet "${flags[@]}" > /dev/null 2>&1 || true
      read -r w u sy < <(tail -1 "$tmp")
      c=$(python3 -c "print(f'{$u + $sy:.2f}')")
      echo "round $r  [${s:-defaults}] $which: $w s wall, $c s CPU (load before $load)"
      wall["$s|$which"]+="$w "
      cpu["$s|$which"]+="$c "
    done
  done
done
median() { python3 -c "import statistics,sys; print(f'{statistics.median(map(float, sys.argv[1:])):.2f}')" $1; }
echo
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; date: $(date -u +%F); $rounds round(s)"
for s in "${sets[@]}"; do
  bw=$(median "${wall["$s|before"]}") aw=$(median "${wall["$s|after"]}")
  bc=$(median "${cpu["$s|before"]}") ac=$(median "${cpu["$s|after"]}")
  echo "[${s:-defaults}] median wall: before $bw s, after $aw s ($(python3 -c "print(f'{$aw / $bw:.2f}')")x);" \
    "median CPU: before $bc s, after $ac s ($(python3 -c "print(f'{$ac / $bc:.2f}')")x)"
done
