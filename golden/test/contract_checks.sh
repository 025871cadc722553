# SPDX-License-Identifier: MIT
# Sourced by the golden script tests: checks with check_contract.py that
# both the plain and the fused exports make. Needs $py and $src.
contract=("$py" "$src/python/golden_checks/check_contract.py" --quiet)

# expect_tenfold_accepts DIR WHAT: with every budget and code interval
# widened tenfold, check_contract.py accepts some invalid outputs of DIR (a
# consumer widening its tolerance lets the catalogue's bugs through): the
# budgets are tight. WHAT names the outputs in the failure.
expect_tenfold_accepts() {
  local out
  if out=$("${contract[@]}" --widen 10 "$1"); then
    echo "$out"; echo "with tenfold budgets every invalid $2 was still rejected: the budgets prove nothing"; exit 1
  fi
  echo "$out" | head -2
  [[ $out =~ x10:\ ([1-9][0-9]*)\ invalid\ outputs\ accepted ]] || { echo "$out"; exit 1; }
}

# forge DIR WHAT: runs the Python on stdin with DIR (a copy of an export)
# and forge_export.rewrite importable, then expects check_contract.py to
# refuse DIR.
forge() {
  "$py" - "$1" "$src/golden/test" || exit 1
  if "${contract[@]}" "$1" >/dev/null; then echo "an altered $2 passed check_contract.py"; exit 1; fi
  echo "check_contract.py: an altered $2 is caught"
}
