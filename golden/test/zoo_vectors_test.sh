#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The committed zoo vectors (golden/zoo/vectors/<family>/, `golden export
# --config golden/zoo/<family>.json --committed-size`):
#   1. each equals a fresh export byte for byte (a zoo file changed without
#      its vectors, or an exporter change, fails here);
#   2. `ropecheck golden verify` passes the built-ins that take every case;
#   3. the numpy consumer reproduces them.
# Regenerate after a deliberate change:
#   for f in golden/zoo/*.json; do ropecheck golden export --config "$f" --committed-size \
#     --out golden/zoo/vectors/$(basename "$f" .json) --quiet; done
# Usage: zoo_vectors_test.sh ROPECHECK SOURCE_DIR WORK_DIR PYTHON
set -euo pipefail
bin=$1 src=$2 work=$3 py=$4
rm -rf "$work" && mkdir -p "$work"
families=0
for cfg in "$src"/golden/zoo/*.json; do
  family=$(basename "$cfg" .json)
  committed="$src/golden/zoo/vectors/$family"
  [[ -f $committed/manifest.json ]] || { echo "$family: no committed vectors in $committed"; exit 1; }
  "$bin" golden export --quiet --config "$cfg" --committed-size --out "$work/$family" >/dev/null
  diff -r "$committed" "$work/$family"
  # The built-ins that take every case of every family (both layouts, no
  # cos/sin cache whose size limit a model's context can pass); the others
  # are gated on each family by the ctest zoo_check_<family>.
  "$bin" golden verify --dir "$committed" --impl=scalar_naive --impl=scalar_rotate_half --impl=simd_otf | tail -1
  "$py" "$src/python/golden_checks/check_numpy.py" --quiet "$committed"
  families=$((families + 1))
done
# No vectors left behind for a family the zoo no longer has.
for dir in "$src"/golden/zoo/vectors/*/; do
  [[ -f $src/golden/zoo/$(basename "$dir").json ]] || { echo "$dir: vectors of no zoo family"; exit 1; }
done
echo "zoo vectors: $families families identical to a fresh export, verified, reproduced by the numpy consumer"
