#!/usr/bin/env bash
# The committed fused golden vectors (golden/vectors/fused/, `golden export
# --suite fused`, manifest schema 4, issue #32) end to end, as a user meets
# them:
#   1. each committed format equals a fresh export byte for byte, the fused
#      mutants' invalid outputs (caches included) among them;
#   2. the manifest validates against golden/schema (v4), which refuses
#      what it exists to refuse;
#   3. `ropecheck golden verify` passes the built-in kernels (the fused
#      vLLM-style one on the divide cases, a plain one on q and k) and the
#      FlashInfer-style one on the multiply cases, and fails a fused mutant;
#   4. check_contract.py (json and numpy alone) finds the exactly rounded
#      caches within every policy's codes and every invalid output rejected
#      as marked, on the committed safetensors and a fresh hex JSON export;
#      with every budget and code
#      interval widened tenfold it accepts invalid outputs (the budgets are
#      tight); an output's stated cache steps altered is caught.
# Regenerate after a deliberate change:
#   ropecheck golden export --suite fused --out golden/vectors/fused/safetensors --quiet
# Usage: golden_fused_test.sh ROPECHECK SOURCE_DIR WORK_DIR PYTHON MUTANT_DIR
set -euo pipefail
bin=$1 src=$2 work=$3 py=$4 mutants=$5
rm -rf "$work" && mkdir -p "$work"
committed=("$src"/golden/vectors/fused/*/)
(( ${#committed[@]} > 0 )) || { echo "no committed fused vectors under $src/golden/vectors/fused"; exit 1; }
for dir in "${committed[@]}"; do
  fmt=$(basename "$dir")
  "$bin" golden export --quiet --suite fused --format "$fmt" --threads 2 --out "$work/fused-$fmt" >/dev/null
  diff -r "$dir" "$work/fused-$fmt"
  echo "fused/$fmt: identical to the committed vectors"
done
st="$src/golden/vectors/fused/safetensors"

"$py" "$src/golden/test/validate_schema.py" "$src/golden/schema/ropecheck_golden_manifest_v4.schema.json" \
  "$st/manifest.json"

"$bin" golden verify --dir "$st" | tail -1
"$bin" golden verify --dir "$st" --impl=scalar_fused_kv_flashinfer --impl=simd_fused_kv_vllm | tail -1
if "$bin" golden verify --dir "$st" --plugin "$mutants/mutant_kv_scales_swapped.so" >/dev/null; then
  echo "mutant_kv_scales_swapped passed the fused vectors"; exit 1
fi
echo "mutant_kv_scales_swapped fails golden verify on the fused vectors, as it must"

contract=("$py" "$src/python/golden_checks/check_contract.py" --quiet)
# The hex JSON format too (fp8 codes as integers, fp16/bf16/fp32 caches as
# exact hex floats), exported fresh: the committed vectors are safetensors.
"$bin" golden export --quiet --suite fused --format json --threads 2 --out "$work/fused-json" >/dev/null
for dir in "${committed[@]}" "$work/fused-json"; do
  "${contract[@]}" "$dir"
done
if out=$("${contract[@]}" --widen 10 "$st"); then
  echo "$out"; echo "with tenfold budgets every invalid fused output was still rejected: the budgets prove nothing"; exit 1
fi
echo "$out" | head -2
[[ $out =~ x10:\ ([1-9][0-9]*)\ invalid\ outputs\ accepted ]] || { echo "$out"; exit 1; }
# An output's stated cache steps altered (checksums recomputed): caught.
cp -r "$st" "$work/forged"
"$py" - "$work/forged" <<'PY'
import hashlib, json, sys
d = sys.argv[1]
m = json.load(open(f"{d}/manifest.json"))
o = next(o for c in m["cases"] for o in c["outputs"] if o["cacheSteps"]["exact_f64"] != "inf")
o["cacheSteps"]["exact_f64"] = o["cacheSteps"]["exact_f64"] + 1
text = json.dumps(m, indent=1).encode()
open(f"{d}/manifest.json", "wb").write(text)
sums = [l for l in open(f"{d}/SHA256SUMS").read().splitlines() if not l.endswith("  manifest.json")]
open(f"{d}/SHA256SUMS", "w").write("\n".join(sums + [hashlib.sha256(text).hexdigest() + "  manifest.json"]) + "\n")
PY
if "${contract[@]}" "$work/forged" >/dev/null; then echo "an altered cacheSteps passed check_contract.py"; exit 1; fi
echo "check_contract.py: an altered cacheSteps is caught"
echo "fused golden vectors: all checks passed"
