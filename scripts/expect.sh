# SPDX-License-Identifier: MIT
# Sourced by the CLI tests (mutants/plugin_isolation_test.sh,
# cli/test/bad_input_test.sh): run a command, require its exit status and a
# pattern in its output, count the failures in $fails.
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
