#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Isolation's cost on the gate, every mode measured in the same run of the
# same build (bench/RESULTS.md, "Crash isolation"): the quick gate over the
# default built-in kernels in process (--no-isolation), with a persistent
# worker per implementation (--isolation worker, the default) and with a
# child process per call (--isolation fork), ROUNDS rounds interleaved so
# that load on a shared machine falls on every mode alike. Prints each run's
# wall and CPU seconds, the median per mode and the ratios of the medians.
#
# usage: bench/isolation_overhead.sh [ROPECHECK] [ROUNDS] [-- extra check arguments]
#   ROPECHECK default build/release/ropecheck, ROUNDS default 3.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/build/release/ropecheck}
rounds=${2:-3}
shift $(($# > 2 ? 2 : $#))
[[ ${1:-} == -- ]] && shift
extra=("$@")
declare -A runs
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
modes=("in_process:--no-isolation" "worker:--isolation worker" "fork:--isolation fork")
for ((r = 1; r <= rounds; ++r)); do
  for m in "${modes[@]}"; do
    name=${m%%:*}
    read -r -a flags <<<"${m#*:}"
    load=$(cut -d' ' -f1 /proc/loadavg)
    /usr/bin/time -o "$tmp" -f "%e %U %S" "$bin" check --quiet "${flags[@]}" "${extra[@]}" > /dev/null 2>&1 || true
    read -r wall user sys < <(tail -1 "$tmp")
    echo "round $r  $name: ${wall} s wall, $(python3 -c "print(f'{$user + $sys:.2f}')") s CPU (load before $load)"
    runs[$name]+="$wall "
  done
done
median() { python3 -c "import statistics,sys; print(f'{statistics.median(map(float, sys.argv[1:])):.2f}')" $1; }
ip=$(median "${runs[in_process]}") wk=$(median "${runs[worker]}") fk=$(median "${runs[fork]}")
echo
echo "machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; date: $(date -u +%F); $rounds round(s)"
echo "median wall: in process $ip s, worker $wk s, fork $fk s"
echo "isolated / in process: worker $(python3 -c "print(f'{$wk / $ip:.2f}')")x, fork $(python3 -c "print(f'{$fk / $ip:.2f}')")x"
