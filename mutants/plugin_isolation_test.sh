#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every misbehaving plugin of mutants/misbehaviour_list.h, through the CLI:
# the exact exit code and the message that names the cause. Kernels that
# crash, exit, hang, overflow their stack, run out of memory, write where
# they must not, leave work running or read their outputs are failing cases
# with a reproduce line, never the end of the run and never a pass; plugins
# that cannot load are refused (exit 2); SIGINT/SIGTERM stop at once (130 /
# 143) with a partial report and nothing left running. Isolated rows run
# with a persistent worker per implementation (the default) and with a
# child per call (--isolation fork), plus the rows that attack a worker:
# state one call leaves for the next.
# Usage: plugin_isolation_test.sh ROPECHECK BAD_DIR MUTANT_DIR [SMOKE_DIR]
set -uo pipefail
bin=$1 bad=$2 mutants=$3
smoke=${4:-$(dirname "$0")/../golden/vectors/smoke/safetensors}
source "$(dirname "$0")/../scripts/expect.sh"
none_left() {  # none_left NAME PROCESS_NAME: nothing of that name may outlive the run
  if pgrep -x "$2" >/dev/null; then
    echo "FAIL $1: a process '$2' outlived the run"; pkill -KILL -x "$2"; fails=$((fails + 1))
  else
    echo "ok   $1: no '$2' left running"
  fi
}
p() { echo "$bad/misbehaving_$1.so"; }
# Every row that runs kernels isolated runs in both modes: a persistent
# worker per implementation (the default; names without a suffix) and a
# child per call (--isolation fork; names ending in -fork).
for mode in worker fork; do
sfx="" iso_mode=()
if [[ $mode == fork ]]; then sfx=-fork iso_mode=(--isolation fork); fi
gate=(check --cases 8 --quiet "${iso_mode[@]}")

# Crashes, hangs and deaths are named, and the run goes on.
expect "crash$sfx" 1 "crashed with signal 11 \(a NULL pointer dereference at 0x40\)" -- "$bin" "${gate[@]}" --plugin "$(p crash)"
expect "crash-reproduce$sfx" 1 "reproduce: ropecheck check --impl misbehaving_crash .* --plugin /.*misbehaving_crash.so" -- \
  "$bin" "${gate[@]}" --plugin "$(p crash)"
expect "crash-goes-on$sfx" 1 "\| misbehaving_crash \| ConformsToReference \| 8 \|" -- "$bin" "${gate[@]}" --plugin "$(p crash)"
expect "hang$sfx" 1 "timed out after 1 s" -- "$bin" "${gate[@]}" --property ConformsToReference --timeout 1 --plugin "$(p hang)"
expect "exit-in-apply$sfx" 1 "isolated call: called exit\(0\)" -- "$bin" "${gate[@]}" --plugin "$(p exit_in_apply)"
expect "stack-overflow$sfx" 1 "crashed with signal 11 \(a stack overflow at 0x" -- "$bin" "${gate[@]}" --plugin "$(p stack_overflow)"
expect "null-after-alloc$sfx" 1 "exceeded the memory limit \(16 GiB, --memory-limit\): an allocation failed and the NULL it returned was dereferenced" -- \
  "$bin" "${gate[@]}" --plugin "$(p null_after_alloc)"
expect "memory-limit-option$sfx" 1 "exceeded the memory limit \(2 GiB, --memory-limit\)" -- \
  "$bin" "${gate[@]}" --memory-limit 2 --plugin "$(p null_after_alloc)"
expect "overrun$sfx" 1 "an access outside its buffers \(past the end of q_out at 0x" -- "$bin" "${gate[@]}" --plugin "$(p overrun)"
# An underrun within the page before a buffer hits the canaries there (one
# a whole page away, the guard page: "an access outside its buffers").
expect "underrun$sfx" 1 "wrote before the start of q_out \(canary overwritten\)" -- "$bin" "${gate[@]}" --plugin "$(p underrun)"
expect "unwritten$sfx" 1 "FAIL misbehaving_unwritten ConformsToReference" -- "$bin" "${gate[@]}" --plugin "$(p unwritten)"

# Writes into inputs.
expect "writes-positions$sfx" 1 "wrote into its input positions" -- "$bin" "${gate[@]}" --plugin "$(p writes_positions)"
expect "writes-q-in$sfx" 1 "wrote into its input q_in" -- "$bin" "${gate[@]}" --plugin "$(p writes_q_in)"
expect "writes-freq$sfx" 1 "wrote into its input freq" -- "$bin" "${gate[@]}" --plugin "$(p writes_freq)"
expect "writes-cache$sfx" 1 "wrote into its input cos_sin_cache" -- "$bin" "${gate[@]}" --property ConformsToReference --plugin "$(p writes_cache)"
# The caller's cache read-only during the call: a write put back before the
# call returns is named too (issue #49; a comparison after the call missed it).
expect "restores-caller-cache$sfx" 1 "wrote into its input cos_sin_cache \(read-only for the call\)" -- \
  "$bin" "${gate[@]}" --property ConformsToReference --plugin "$(p restores_caller_cache)"
# Its own cache too (in process a copy compared after the call missed it).
expect "restores-own-cache$sfx" 1 "wrote into its input cos_sin_cache \(read-only for the call\)" -- \
  "$bin" "${gate[@]}" --property ConformsToReference --plugin "$(p restores_own_cache)"
# Outputs read before they are written: two calls, two poisons, two results.
expect "reads-output$sfx" 1 "two calls on the same case differ at .*it reads its output before writing it" -- \
  "$bin" "${gate[@]}" --property ConformsToReference --plugin "$(p reads_output)"

# Work left running after apply returned fails the call, is killed before
# the outputs are read, and cannot touch a later call.
expect "background-thread$sfx" 1 "left [0-9]+ thread\(s\) running after it returned" -- "$bin" "${gate[@]}" --plugin "$(p background_thread)"
expect "forked-writer$sfx" 1 "left a child process \(pid [0-9]+\) running after it returned" -- \
  "$bin" "${gate[@]}" --plugin "$(p forked_writer)"
expect "daemon$sfx" 1 "started a process \(pid [0-9]+\) that left its process group and was still running" -- \
  "$bin" "${gate[@]}" --plugin "$(p daemon)"
expect "daemon-then-correct-kernel$sfx" 1 "\| mutant_none \| ConformsToReference \| 8 \| 8 \| 0 \| 0 \|" -- \
  "$bin" "${gate[@]}" --plugin "$(p daemon)" --plugin "$mutants/mutant_none.so"
# Work finished by a detached thread a millisecond after apply returned
# (the results are there by the time anyone looks): the call's process is
# stopped the moment it answers, in both modes, so the thread is counted
# and its writes never reach what is judged; golden verify the same.
expect "late-writer$sfx" 1 "left [0-9]+ thread\(s\) running after it returned" -- "$bin" "${gate[@]}" --plugin "$(p late_writer)"
expect "late-writer-golden$sfx" 1 "left [0-9]+ thread\(s\) running after it returned" -- \
  "$bin" golden verify --dir "$smoke" "${iso_mode[@]}" --plugin "$(p late_writer)"
# Floating-point control state left changed: named (the call's own
# process checks it after the body returned).
expect "fp-rounding-left$sfx" 1 "left the floating-point environment changed after it returned \(rounding mode upward" -- \
  "$bin" "${gate[@]}" --plugin "$(p fp_rounding_left)"
expect "ftz-left$sfx" 1 "left the floating-point environment changed after it returned \((flush-to-zero set|rounding mode)" -- \
  "$bin" "${gate[@]}" --plugin "$(p ftz_left)"
# _exit(0) and a closed stdout in an isolated call end that call only.
expect "raw-exit$sfx" 1 "ended the process with status 0 without returning" -- "$bin" "${gate[@]}" --plugin "$(p raw_exit)"
expect "closes-stdout$sfx" 0 "Overall: PASS" -- "$bin" "${gate[@]}" --plugin "$(p closes_stdout)"
expect "closes-stdout-and-stderr$sfx" 0 "Overall: PASS" -- "$bin" "${gate[@]}" --plugin "$(p closes_stdout_and_stderr)"
# A kernel that tells the harness's NaN poison from a production buffer
# (computes only on NaN): some calls get finite garbage or a copy of the
# input instead, at random, and conformance's two calls never the same kind.
expect "poison-sniffer$sfx" 1 "FAIL misbehaving_poison_sniffer" -- "$bin" "${gate[@]}" --plugin "$(p poison_sniffer)"
# A kernel's own standard output goes to ropecheck's standard error, whole
# (what printf buffered is flushed after the call), never into the report.
kout=$(mktemp) kerr=$(mktemp)
"$bin" "${gate[@]}" --plugin "$(p prints_stdout)" >"$kout" 2>"$kerr"; rc=$?
if [[ $rc -ne 0 ]] || grep -q "misbehaving_prints_stdout:" "$kout" || ! grep -q "printf from apply" "$kerr" ||
  ! grep -q "write(1) from apply" "$kerr"; then
  echo "FAIL prints-stdout$sfx: exit $rc, kernel lines in the report: $(grep -c misbehaving_prints_stdout: "$kout"), on stderr: $(grep -c misbehaving_prints_stdout: "$kerr")"
  # What failed, for a failure seen once (the report is deleted below):
  # the report's failing rows and first failures, ropecheck's own stderr.
  grep -E "FAIL|fail \||reproduce:|error" "$kout" | head -20
  grep -v "misbehaving_prints_stdout:" "$kerr" | tail -20
  fails=$((fails + 1))
else
  echo "ok   prints-stdout$sfx: the kernel's $(grep -c misbehaving_prints_stdout: "$kerr") lines on stderr, none in the report"
fi
rm -f "$kout" "$kerr"
# Run under an address-space limit of its own (ulimit -v) lower than what
# --memory-limit grants: a failed allocation is blamed on that limit, at
# once. (Not under AddressSanitizer, which reserves terabytes of it.)
if [[ -z ${ASAN_OPTIONS:-} ]]; then
  expect "ulimit-v$sfx" 1 "exceeded the address-space limit ropecheck was started with \(ulimit -v: 3 GiB" -- \
    timeout 60 bash -c 'ulimit -v 3145728; exec "$@"' - "$bin" "${gate[@]}" --plugin "$(p null_after_alloc)"
fi
expect "sleeping-child$sfx" 1 "left a child process \(pid [0-9]+\) running after it returned" -- \
  timeout 120 "$bin" "${gate[@]}" --plugin "$(p sleeping_child)"
none_left "sleeping-child-killed$sfx" rc_sleeping_kid
# A daemon a call left signals its ancestors named ropecheck (issue #49: the
# run hung with nothing on stdout, or died with no verdict): the call's
# processes can signal nothing outside the call (core/isolation/
# signal_fence.h), so the run ends with a verdict naming the kernel.
for sig in stops kills; do
  expect "$sig-ropecheck$sfx" 1 "FAIL misbehaving_${sig}_ropecheck ConformsToReference" -- \
    timeout 120 "$bin" "${gate[@]}" --timeout 1 --property ConformsToReference --plugin "$(p ${sig}_ropecheck)"
done

# State one call leaves for a later one in the same process. A worker lives
# across calls; a child per call first calls the kernel on decoy inputs (the
# signs flipped) at the very addresses of the judged call, then resets what
# a worker resets between calls: both meet what a process making every call
# in production would.
# A result kept by input address is returned for another case whose buffers
# sit at that address: wrong, and caught.
expect "stale-results$sfx" 1 "FAIL misbehaving_stale_results" -- "$bin" "${gate[@]}" --plugin "$(p stale_results)"
# A SIGSEGV handler left by the first call would turn the second call's
# overrun into a clean exit(0): handlers are installed again before every
# call, so the overrun is named.
expect "handler-left-installed$sfx" 1 "an access outside its buffers \(past the end of q_out at 0x" -- \
  "$bin" "${gate[@]}" --plugin "$(p handler_left_installed)"
# An alarm left armed by the first call would end the second with SIGALRM:
# a worker holding a timer is replaced after the call, as a child is killed.
expect "timer-left-armed$sfx" 0 "Overall: PASS" -- "$bin" "${gate[@]}" --plugin "$(p timer_left_armed)"
# Address space kept by earlier calls would leave a later call less than
# --memory-limit: a worker holding more than the limit is replaced.
expect "leaks-address-space$sfx" 0 "Overall: PASS" -- "$bin" "${gate[@]}" --memory-limit 1 --plugin "$(p leaks_address_space)"

expect "control-passes$sfx" 0 "Overall: PASS" -- "$bin" "${gate[@]}" --plugin "$mutants/mutant_none.so"
done

gate=(check --cases 8 --quiet)
expect exit-in-apply-no-isolation 1 \
  "error: the kernel misbehaving_exit_in_apply \(called in ropecheck's own process\) called exit\(0\); ropecheck stops here without a verdict" -- \
  "$bin" "${gate[@]}" --no-isolation --plugin "$(p exit_in_apply)"
# The floating-point control state a kernel leaves is named and restored
# in process too: neither the reference nor the next kernel computes in it.
expect fp-rounding-left-no-isolation 1 "left the floating-point environment changed after it returned \(rounding mode upward" -- \
  "$bin" "${gate[@]}" --no-isolation --plugin "$(p fp_rounding_left)"
expect ftz-left-then-correct-no-isolation 1 "\| mutant_none \| ConformsToReference \| 8 \| 8 \| 0 \| 0 \|" -- \
  "$bin" "${gate[@]}" --no-isolation --plugin "$(p ftz_left)" --plugin "$mutants/mutant_none.so"
expect fp-rounding-left-then-correct-no-isolation 1 "\| mutant_none \| ConformsToReference \| 8 \| 8 \| 0 \| 0 \|" -- \
  "$bin" "${gate[@]}" --no-isolation --plugin "$(p fp_rounding_left)" --plugin "$mutants/mutant_none.so"
# Exit status 0 means a verdict was printed, in process too: _exit(0) and a
# closed standard output are named by the supervising process, status 1.
expect raw-exit-no-isolation 1 "ended with status 0 before its verdict was complete" -- \
  "$bin" "${gate[@]}" --no-isolation --plugin "$(p raw_exit)"
expect closes-stdout-no-isolation 1 "standard output was closed or replaced during the run" -- \
  "$bin" "${gate[@]}" --no-isolation --plugin "$(p closes_stdout)"
# Both closed: the supervisor says it on its own standard error (#49: status 1 and no word).
expect closes-stdout-and-stderr-no-isolation 1 "the report could not be written to standard output: standard output was closed" -- \
  "$bin" "${gate[@]}" --no-isolation --plugin "$(p closes_stdout_and_stderr)"
expect poison-sniffer-no-isolation 1 "FAIL misbehaving_poison_sniffer" -- \
  "$bin" "${gate[@]}" --no-isolation --plugin "$(p poison_sniffer)"
expect writes-positions--no-isolation 1 "wrote into its input positions" -- "$bin" "${gate[@]}" --no-isolation --plugin "$(p writes_positions)"
expect writes-q-in--no-isolation 1 "wrote into its input q_in" -- "$bin" "${gate[@]}" --no-isolation --plugin "$(p writes_q_in)"
expect writes-freq--no-isolation 1 "wrote into its input freq" -- "$bin" "${gate[@]}" --no-isolation --plugin "$(p writes_freq)"
expect writes-cache--no-isolation 1 "wrote into its input cos_sin_cache" -- "$bin" "${gate[@]}" --no-isolation --property ConformsToReference --plugin "$(p writes_cache)"
expect restores-caller-cache--no-isolation 1 "wrote into its input cos_sin_cache \(the caller's, .*read-only for the call" -- \
  "$bin" "${gate[@]}" --no-isolation --property ConformsToReference --plugin "$(p restores_caller_cache)"
expect restores-own-cache--no-isolation 1 "wrote into its input cos_sin_cache \(its own, .*read-only for the call" -- \
  "$bin" "${gate[@]}" --no-isolation --property ConformsToReference --plugin "$(p restores_own_cache)"

# Loading: refused with a message naming the plugin and the cause.
expect wrong-abi 2 "abi_version: this host speaks version 1 \(got 99\)" -- "$bin" check --plugin "$(p wrong_abi)"
expect bad-caps 2 "table\[0\]\..*build_cache" -- "$bin" check --plugin "$(p bad_caps)"
expect no-entry 2 "missing symbol ropecheck_get_impls" -- "$bin" check --plugin "$(p no_entry)"
expect not-a-library 2 "cannot load" -- "$bin" check --plugin "$0"
for iso in "" --no-isolation; do
  expect "exit-at-load$iso" 2 "plugin .*misbehaving_exit_at_load.so: loading it .* called exit\(0\)" -- \
    "$bin" check $iso --plugin "$(p exit_at_load)"
  expect "crash-at-load$iso" 2 "plugin .*misbehaving_crash_at_load.so: loading it .* crashed with signal 11" -- \
    "$bin" check $iso --plugin "$(p crash_at_load)"
done

# A verdict needs judged cases.
expect declines-everything 1 "FAIL misbehaving_declines_everything ConformsToReference: judged on 0 case\(s\), fewer than --min-judged 1" -- \
  "$bin" "${gate[@]}" --plugin "$(p declines_everything)"
expect declines-everything-golden 1 "FAIL misbehaving_declines_everything: judged on 0 case\(s\), fewer than --min-judged 1 \([0-9]+ of [0-9]+ outside its declared capabilities or declined by it\)" -- \
  "$bin" golden verify --dir "$smoke" --plugin "$(p declines_everything)"
expect min-judged 1 "judged on [0-9]+ case\(s\), fewer than --min-judged 1000" -- \
  "$bin" "${gate[@]}" --min-judged 1000 --plugin "$mutants/mutant_none.so"

# Correct kernels pass; --no-isolation says what it gives up.
expect no-isolation-note 0 "Isolation: off \(--no-isolation\)" -- "$bin" "${gate[@]}" --no-isolation --plugin "$mutants/mutant_none.so"
expect golden-verify-plugin 1 "FAIL case" -- "$bin" golden verify --dir "$smoke" --plugin "$mutants/mutant_layout_swapped.so"

# Signals: SIGTERM to ropecheck, SIGINT to its process group (Ctrl-C), in
# the middle of a hanging call: out at once, partial report, nothing left.
scratch=$(mktemp -d)
interrupt() {  # interrupt NAME SIGNAL WANT_RC TARGET(pid|group) [ARGS...]
  local start=$SECONDS pid rc
  setsid "$bin" check --cases 8 --quiet --timeout 600 --plugin "$(p hang)" --summary "$scratch/$1.md" "${@:5}" \
    >"$scratch/$1.out" 2>&1 &
  pid=$!
  sleep 3
  if [[ $4 == group ]]; then kill -"$2" -- -"$pid"; else kill -"$2" "$pid"; fi
  wait "$pid"; rc=$?
  if [[ $rc -ne $3 ]] || ((SECONDS - start > 20)) || ! grep -q "Overall: INTERRUPTED ($2)" "$scratch/$1.out" ||
    ! grep -q "Interrupted by $2" "$scratch/$1.md"; then
    echo "FAIL $1: exit $rc (want $3) after $((SECONDS - start)) s:"; tail -5 "$scratch/$1.out"; fails=$((fails + 1))
  else
    echo "ok   $1: exit $rc after $((SECONDS - start)) s, partial report marked interrupted"
  fi
  if pgrep -s "$pid" >/dev/null; then
    echo "FAIL $1: processes of session $pid outlived ropecheck"; pkill -KILL -s "$pid"; fails=$((fails + 1))
  fi
}
interrupt sigterm SIGTERM 143 pid
interrupt sigint-group SIGINT 130 group
interrupt sigterm-fork SIGTERM 143 pid --isolation fork
interrupt sigint-group-fork SIGINT 130 group --isolation fork
# SIGKILL, which nothing can handle: to ropecheck (the supervising process)
# the shell sees 137 and nothing of the run outlives it (the command's
# process and its workers die with it, PR_SET_PDEATHSIG); to the command's
# process, the supervisor names it, 137, never 0.
killed() {  # killed NAME TARGET(supervisor|command) [ARGS...]
  local pid rc target
  setsid "$bin" check --cases 8 --quiet --timeout 600 --plugin "$(p hang)" "${@:3}" >"$scratch/$1.out" 2>&1 &
  pid=$!
  sleep 3
  target=$pid
  if [[ $2 == command ]]; then target=$(pgrep -P "$pid" | head -1); fi
  kill -KILL "$target"
  wait "$pid"; rc=$?
  sleep 1
  if [[ $rc -ne 137 ]] || { [[ $2 == command ]] && ! grep -q "ended by signal 9 .*before its verdict" "$scratch/$1.out"; }; then
    echo "FAIL $1: exit $rc (want 137):"; tail -5 "$scratch/$1.out"; fails=$((fails + 1))
  else
    echo "ok   $1: exit $rc"
  fi
  # Dead processes whose parent died are zombies until init reaps them (a
  # container's init may never): only a live one outlived the run.
  if ps -o stat= -s "$pid" | grep -qv '^Z'; then
    echo "FAIL $1: processes of session $pid outlived ropecheck:"; ps -o pid,stat,args -s "$pid"
    pkill -KILL -s "$pid"; fails=$((fails + 1))
  fi
}
# The supervisor is the watchdog of what isolation cannot fence (a kernel in
# ropecheck's own process): a run stopped by SIGSTOP from outside is
# continued at once and its verdict does not count (status 1), naming the
# calls that ran; here the stop comes from this script, mid-run.
stopped_run() {
  local pid run rc
  setsid "$bin" check --suite standard --cases 240 --quiet --plugin "$mutants/mutant_none.so" >"$scratch/stopped.out" 2>&1 &
  pid=$!
  sleep 1.5
  run=$(pgrep -P "$pid" | head -1)
  kill -STOP "$run"
  wait "$pid"; rc=$?
  if [[ $rc -ne 1 ]] || ! grep -q "stopped by SIGSTOP from outside while .*it was continued, and its verdict does not count" \
    "$scratch/stopped.out"; then
    echo "FAIL stopped-run: exit $rc (want 1):"; tail -5 "$scratch/stopped.out"; fails=$((fails + 1))
  else
    echo "ok   stopped-run: exit $rc, $(grep -o 'stopped by SIGSTOP from outside while [^;(]*' "$scratch/stopped.out")"
  fi
}
stopped_run
killed sigkill-supervisor supervisor
killed sigkill-supervisor-no-isolation supervisor --no-isolation
killed sigkill-command command
rm -rf "$scratch"
exit $((fails > 0))
