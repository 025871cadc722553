#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The gate's JSON report against its schema (gate/schema/): the shards of a
# passing run, their merge, a run with a failing kernel (a mutant plugin)
# and one under its verdict floor each validate, and the schema refuses each
# alteration golden/test/validate_schema.py makes (an unknown suite, a worst
# error that is neither a number nor "inf", ...).
# Usage: report_schema_test.sh ROPECHECK SOURCE_DIR WORK_DIR PYTHON MUTANT_DIR
set -euo pipefail
bin=$1 src=$2 work=$3 py=$4 mutants=$5
rm -rf "$work" && mkdir -p "$work"
run=(check --impl scalar_naive --cases 4 --quiet)
"$bin" "${run[@]}" --shard 1/2 --json "$work/shard1.json" >/dev/null 2>&1
"$bin" "${run[@]}" --shard 2/2 --json "$work/shard2.json" >/dev/null 2>&1
"$bin" merge "$work/shard1.json" "$work/shard2.json" --json "$work/merged.json" >/dev/null
# Exit 1: a failing kernel; a kernel judged on fewer cases than the floor.
"$bin" check --plugin "$mutants/mutant_layout_swapped.so" --cases 2 --quiet --json "$work/failing.json" >/dev/null 2>&1 \
  && { echo "mutant_layout_swapped passed"; exit 1; }
"$bin" "${run[@]}" --min-judged 9 --json "$work/floor.json" >/dev/null 2>&1 \
  && { echo "a run under its floor passed"; exit 1; }
grep -q '"failures": \[$' "$work/failing.json" && grep -q '"why": "judged on' "$work/floor.json" \
  || { echo "the failing reports hold no failure or floor finding"; exit 1; }
"$py" "$src/golden/test/validate_schema.py" "$src/gate/schema/ropecheck_gate_report_v4.schema.json" \
  "$work"/{shard1,shard2,merged,failing,floor}.json
echo "gate reports: shards, merge, a failing run and one under the floor match the schema"
