#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The golden exports end to end, as a user meets them:
#   1. the committed smoke suite equals a fresh export, byte for byte, in
#      every format, the bug catalogue's invalid and acceptable outputs
#      included;
#   2. two exports of the long-context suite (different thread counts) are
#      identical, outputs included, and the standard suite exports in
#      under 60 s;
#   3. every manifest validates against golden/schema;
#   4. `ropecheck golden verify` passes every built-in implementation and
#      every policy kernel (HF eager in bf16/fp16 among them) under its
#      declared policy, and fails HF eager declaring fp32 math, and the
#      multi-axis mutants (temporal row only, sections reversed) on the
#      committed smoke vectors;
#   5. the numpy consumer passes every suite and format, the multi-axis
#      cases among them, in float64 and in the arithmetic of the fp32 and HF
#      eager policies, and a consumer with the layout swapped fails exactly
#      the cases where layouts differ;
#   6. the consumer that reads the files with json and numpy alone
#      (check_contract.py) finds every exact output within every budget and
#      every invalid and acceptable output as marked, in every format; with its budgets widened tenfold it accepts invalid outputs
#      (the budgets are tight); an output's stated worst error altered is
#      caught.
# Usage: golden_exports_test.sh ROPECHECK SOURCE_DIR WORK_DIR PYTHON MUTANT_DIR
set -euo pipefail
bin=$1 src=$2 work=$3 py=$4 mutants=$5
rm -rf "$work" && mkdir -p "$work"
export_suite() { "$bin" golden export --quiet --suite "$1" --format "$2" --jobs "$3" --out "$4" >/dev/null; }

for fmt in safetensors npy json; do
  export_suite smoke $fmt 2 "$work/smoke-$fmt"
  diff -r "$src/golden/vectors/smoke/$fmt" "$work/smoke-$fmt"
  echo "smoke/$fmt: identical to the committed vectors"
done

start=$(date +%s%N)
export_suite standard safetensors 2 "$work/standard-a"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "standard: exported in $ms ms"
(( ms <= 60000 )) || { echo "standard export took $ms ms (bound: 60 s)"; exit 1; }
export_suite long-context safetensors 2 "$work/long-context-a"
export_suite long-context safetensors 1 "$work/long-context-b"
diff -r "$work/long-context-a" "$work/long-context-b"
echo "long-context: two exports identical"
# The other formats of standard for the numpy consumer: the exact outputs
# alone (the smoke vectors hold the outputs in every format).
"$bin" golden export --quiet --suite standard --format npy --no-outputs --out "$work/standard-npy" >/dev/null
"$bin" golden export --quiet --suite standard --format json --no-outputs --out "$work/standard-json" >/dev/null

"$py" "$src/golden/test/validate_schema.py" "$src/golden/schema/ropecheck_golden_manifest_v3.schema.json" \
  "$src"/golden/vectors/smoke/*/manifest.json "$work/standard-a/manifest.json" "$work/long-context-a/manifest.json" \
  "$work/standard-npy/manifest.json"

policy_kernels=(policy_hf_eager policy_fma_storage policy_ggml_cpu policy_cuda_powf policy_fast_sincos
                policy_f64_fp32_positions)
for dir in "$src/golden/vectors/smoke/safetensors" "$work/standard-a" "$work/long-context-a"; do
  "$bin" golden verify --dir "$dir" | tail -1
  "$bin" golden verify --dir "$dir" "${policy_kernels[@]/#/--impl=}" | tail -1
done
for dir in "$work/standard-a" "$work/long-context-a"; do
  if "$bin" golden verify --dir "$dir" --plugin "$mutants/mutant_hf_eager_math_declared_f32.so" >/dev/null; then
    echo "$dir: HF eager declaring fp32 math passed golden verify"; exit 1
  fi
  echo "$dir: HF eager declaring fp32 math fails golden verify, as it must"
done

for bug in mrope_temporal_only mrope_sections_reversed; do
  if "$bin" golden verify --dir "$src/golden/vectors/smoke/safetensors" --plugin "$mutants/mutant_$bug.so" >/dev/null; then
    echo "mutant_$bug passed the smoke vectors' multi-axis cases"; exit 1
  fi
  echo "mutant_$bug fails golden verify on the smoke vectors, as it must"
done

for dir in "$src"/golden/vectors/smoke/* "$work/standard-a" "$work/standard-npy" "$work/standard-json" \
           "$work/long-context-a"; do
  out=$("$py" "$src/python/golden_checks/check_numpy.py" --quiet "$dir") || { echo "$out"; exit 1; }
  echo "$out"
  # The multi-axis models are judged too: one case each in smoke, two in standard.
  case $dir in
    */smoke/*) [[ $out == *"(4 multi-axis)"* ]] || { echo "$dir: expected 4 multi-axis cases"; exit 1; } ;;
    */standard-*) [[ $out == *"(8 multi-axis)"* ]] || { echo "$dir: expected 8 multi-axis cases"; exit 1; } ;;
  esac
done
for policy in f32_angle_product hf_eager; do
  for dir in "$src/golden/vectors/smoke/safetensors" "$work/standard-a" "$work/long-context-a"; do
    "$py" "$src/python/golden_checks/check_numpy.py" --quiet --policy $policy "$dir"
  done
done
for dir in "$src/golden/vectors/smoke/safetensors" "$work/standard-a" "$work/long-context-a"; do
  "$py" "$src/python/golden_checks/check_numpy.py" --quiet --swap-layout --expect-layout-failures "$dir"
done
source "$src/golden/test/contract_checks.sh"
for dir in "$src"/golden/vectors/smoke/* "$work/standard-a"; do
  "${contract[@]}" "$dir"
done
expect_tenfold_accepts "$src/golden/vectors/smoke/safetensors" output
# An output's stated worst error altered (checksums recomputed): caught.
cp -r "$src/golden/vectors/smoke/npy" "$work/forged"
forge "$work/forged" worstUnits <<'PY'
import json, sys
sys.path.insert(0, sys.argv[2])
from forge_export import rewrite
d = sys.argv[1]
m = json.load(open(f"{d}/manifest.json"))
o = next(o for c in m["cases"] for o in c["outputs"] if o["result"] == "invalid")
o["worstUnits"]["exact_f64"] = o["worstUnits"]["exact_f64"] * 2 if o["worstUnits"]["exact_f64"] != "inf" else 1e300
rewrite(d, m)
PY
# An invalid output's tensor edited where its recorded measure still holds
# (a worst of infinity stays infinity), checksums recomputed (#49):
# `golden verify` recomputes it by its mutant and refuses it.
cp -r "$src/golden/vectors/smoke/npy" "$work/edited-output"
"$py" - "$work/edited-output" "$src/golden/test" <<'PY' || exit 1
import hashlib, json, sys
sys.path.insert(0, sys.argv[2])
from forge_export import rewrite
d = sys.argv[1]
m = json.load(open(f"{d}/manifest.json"))
case, out = next((c, o) for c in m["cases"] for o in c["outputs"]
                 if o["result"] == "invalid" and all(v == "inf" for v in o["worstUnits"].values()))
entry = next(f for f in case["files"] if f["path"].endswith("/" + out["q"] + ".npy"))
data = bytearray(open(f"{d}/{entry['path']}", "rb").read())
start = 10 + int.from_bytes(data[8:10], "little")  # .npy 1.0: the data after the header
data[start] ^= 1  # the lowest bit of its first element
entry["sha256"] = hashlib.sha256(data).hexdigest()
rewrite(d, m, {entry["path"]: bytes(data)})
PY
if out=$("$bin" golden verify --dir "$work/edited-output" 2>&1); then
  echo "an invalid output edited under an unchanged measure passed golden verify"; exit 1
fi
grep -q "is not what mutant_.* writes on this case (recomputed)" <<<"$out" || { echo "$out" | tail -3; exit 1; }
echo "golden verify: an edited invalid output is recomputed by its mutant and refused"
echo "golden exports: all checks passed"
