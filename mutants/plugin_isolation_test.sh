#!/usr/bin/env bash
# Plugins that crash, hang or leave outputs unwritten are failing cases with
# a reproduce line, never the end of the run; plugins with a wrong ABI
# version, no entry point or incoherent capabilities are refused with a clear
# error (exit 2). Usage: plugin_isolation_test.sh ROPECHECK BAD_DIR MUTANT_DIR
set -uo pipefail
bin=$1 bad=$2 mutants=$3
fails=0
expect() {  # expect NAME EXIT_CODE PATTERN -- command...
  local name=$1 code=$2 pattern=$3; shift 4
  local out rc
  out=$("$@" 2>&1); rc=$?
  if [[ $rc -ne $code ]] || ! grep -qE -- "$pattern" <<<"$out"; then
    echo "FAIL $name: exit $rc (want $code), pattern '$pattern' not found in:"; tail -20 <<<"$out"; fails=$((fails + 1))
  else
    echo "ok   $name: exit $rc, $(grep -oE -m1 -- "$pattern" <<<"$out")"
  fi
}
gate=(check --cases 8 --quiet)
expect crash 1 "crashed with signal 11.*" -- "$bin" "${gate[@]}" --plugin "$bad/misbehaving_crash.so"
expect crash-reproduce 1 "reproduce: ropecheck check --impl mutant_none .* --plugin /.*misbehaving_crash.so" -- \
  "$bin" "${gate[@]}" --plugin "$bad/misbehaving_crash.so"
expect crash-goes-on 1 "\| mutant_none \| ConformsToReference \| 8 \|" -- "$bin" "${gate[@]}" --plugin "$bad/misbehaving_crash.so"
expect hang 1 "timed out after 1 s" -- "$bin" "${gate[@]}" --property ConformsToReference --timeout 1 \
  --plugin "$bad/misbehaving_hang.so"
expect unwritten 1 "FAIL mutant_none ConformsToReference" -- "$bin" "${gate[@]}" --plugin "$bad/misbehaving_unwritten.so"
expect wrong-abi 2 "abi_version: this host speaks version 1 \(got 99\)" -- "$bin" check --plugin "$bad/misbehaving_wrong_abi.so"
expect bad-caps 2 "table\[0\]\..*build_cache" -- "$bin" check --plugin "$bad/misbehaving_bad_caps.so"
expect no-entry 2 "missing symbol ropecheck_get_impls" -- "$bin" check --plugin "$bad/misbehaving_no_entry.so"
expect not-a-library 2 "cannot load" -- "$bin" check --plugin "$0"
expect control-passes 0 "Overall: PASS" -- "$bin" "${gate[@]}" --plugin "$mutants/mutant_none.so"
expect golden-verify-plugin 1 "FAIL case" -- "$bin" golden verify --dir "$(dirname "$0")/../golden/vectors/smoke/safetensors" \
  --plugin "$mutants/mutant_layout_swapped.so"
exit $((fails > 0))
