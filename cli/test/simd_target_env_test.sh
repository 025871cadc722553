#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ROPECHECK_SIMD_TARGET (impls/simd/simd_impls.h): a name that is no target of
# this build and CPU fails the SIMD kernels with a message naming the
# variable and the valid names; a valid name pins the kernels to that target
# (`list` shows it) and the gate passes there. Usage: simd_target_env_test.sh ROPECHECK
set -uo pipefail
cli=$1
out=$(ROPECHECK_SIMD_TARGET=NO_SUCH_TARGET "$cli" check --impl simd_cache --cases 2 --quiet --no-isolation 2>&1)
rc=$?
if [[ $rc -eq 0 ]]; then echo "FAIL: an unknown target passed"; exit 1; fi
msg=$(grep -o 'ROPECHECK_SIMD_TARGET=NO_SUCH_TARGET: not a Highway target[^)]*)' <<<"$out" | head -1)
if [[ -z $msg ]]; then echo "FAIL: no message naming the variable:"; echo "$out" | tail -5; exit 1; fi
echo "refused: $msg"
# Every valid name listed in that message, the weakest last: pin each and run
# a few cases of both SIMD kernels there.
names=$(sed 's/.*(\(.*\))/\1/' <<<"$msg" | tr -d ',')
for t in $names; do
  shown=$(ROPECHECK_SIMD_TARGET=$t "$cli" list | grep -m1 'target:' | awk '{print $2}')
  if [[ $shown != "$t" ]]; then echo "FAIL: pinned to $t, list shows '$shown'"; exit 1; fi
  if ! ROPECHECK_SIMD_TARGET=$t "$cli" check --impl simd_cache simd_otf --cases 24 --quiet --no-isolation > /dev/null; then
    echo "FAIL: the gate on target $t"; exit 1
  fi
  echo "pinned and passed: $t"
done
