#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# README's second command and CI's job (.ci/run): the whole test suite on a
# fresh machine. The same steps as, in order,
#
#   scripts/setup.sh --frameworks && cmake --preset release &&
#   cmake --build --preset release && ctest --preset release &&
#   cmake --preset fuzz && cmake --build --preset fuzz && ctest --preset fuzz &&
#   cmake --preset gate && cmake --build --preset gate && ./build/gate/ropecheck check
#
# (the last line is README's first command without its setup: its build,
# which leaves subcommands out, is built and run here so CI keeps it true)
# with two of them overlapped, because on CI's 2 cores that chain left a core
# idle for minutes (bench/RESULTS.md, "CI time"):
#   - the framework venvs (python/frameworks/install.sh: pip unpacking about
#     15 GB of wheels, one core) install beside the release build; ctest
#     starts once both are done;
#   - the fuzz tree (clang, sanitizers) builds at the lowest CPU priority from
#     the start, so it takes only the time the release build and its tests
#     leave idle (their serial links, a test waiting on a timeout or a child).
#     Its tests run after the release tests, on an idle machine, and so do
#     the release tests that time calls (label `timing`): with the fuzz build
#     beside them, two runs of one kernel differed by 1.5-2x.
# Each background step's output goes to a log under build/, printed when the
# step fails. Exit status: the first failing step's.
set -euo pipefail
cd "$(dirname "$0")/.."
export CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"

step() { echo "test_all: $* ($(date +%T))"; }
pids=()
cleanup() { for p in "${pids[@]}"; do kill -- "-$p" 2>/dev/null || kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT  # so that EXIT's cleanup runs on these too
# Runs "$@" in the background in its own process group (so cleanup can stop
# its whole tree), output to the log $1.
background() {
  local log=$1; shift
  set -m
  ( "$@" ) >"$log" 2>&1 &
  set +m
  pids+=($!)
}
finish() {  # finish PID LOG WHAT: waits for a background step, its log shown if it failed
  local rc=0
  wait "$1" || rc=$?
  if ((rc)); then
    echo "test_all: $3 failed (exit $rc); its log, $2:" >&2
    tail -n 60 "$2" >&2
    exit "$rc"
  fi
  step "$3 done"
}

step "Debian packages"
scripts/setup.sh --tests
mkdir -p build

step "framework venvs, in the background (log build/frameworks-install.log)"
background build/frameworks-install.log python/frameworks/install.sh
fw=${pids[-1]}

step "fuzz tree, in the background at nice 19 (log build/fuzz-build.log)"
background build/fuzz-build.log nice -n 19 bash -c 'cmake --preset fuzz && cmake --build --preset fuzz'
fuzz=${pids[-1]}

step "README's first command's build (preset gate), in the background at nice 19 (log build/gate-build.log)"
background build/gate-build.log nice -n 19 bash -c 'cmake --preset gate && cmake --build --preset gate'
gate=${pids[-1]}

step "release build"
cmake --preset release
cmake --build --preset release
finish "$fw" build/frameworks-install.log "framework venvs"
step "release tests"
ctest --preset release -LE timing
finish "$fuzz" build/fuzz-build.log "fuzz build"
step "release tests that time calls (label timing), on an idle machine"
ctest --preset release -L timing
step "fuzz tests"
ctest --preset fuzz
finish "$gate" build/gate-build.log "gate build"
step "README's first command's check (./build/gate/ropecheck check)"
./build/gate/ropecheck check --quiet
step "all passed"
