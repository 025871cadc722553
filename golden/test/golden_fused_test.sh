#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The committed fused golden vectors (golden/vectors/fused/, `golden export
# --suite fused`, manifest schema 5, issue #32: KV-cache writes, qk-norms
# and the caller's cos/sin cache) end to end, as a user meets them:
#   1. each committed format equals a fresh export byte for byte, the fused
#      mutants' invalid outputs (caches included) among them;
#   2. the manifest validates against golden/schema (v5), which refuses
#      what it exists to refuse;
#   3. `ropecheck golden verify` passes the built-in kernels (the fused
#      vLLM-style one on the divide cases, a plain one on q and k) and the
#      FlashInfer-style one on the multiply cases, the qk-norm kernels of
#      Qwen3's and Gemma 3's roundings and the caller's-cache kernel, and
#      fails a fused mutant, a qk-norm one and a cos/sin-cache one;
#   4. check_contract.py (json and numpy alone) finds the exactly rounded
#      caches within every policy's codes and every invalid output rejected
#      as marked, on the committed safetensors and a fresh hex JSON export;
#      with every budget and code
#      interval widened tenfold it accepts invalid outputs (the budgets are
#      tight); an output's stated cache steps altered is caught, and so is
#      a caller's cos/sin cache value altered in the hex JSON export.
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
  "$bin" golden export --quiet --suite fused --format "$fmt" --jobs 2 --out "$work/fused-$fmt" >/dev/null
  diff -r "$dir" "$work/fused-$fmt"
  echo "fused/$fmt: identical to the committed vectors"
done
st="$src/golden/vectors/fused/safetensors"

"$py" "$src/golden/test/validate_schema.py" "$src/golden/schema/ropecheck_golden_manifest_v5.schema.json" \
  "$st/manifest.json"

"$bin" golden verify --dir "$st" | tail -1
"$bin" golden verify --dir "$st" --impl=scalar_fused_kv_flashinfer --impl=simd_fused_kv_vllm \
  --impl=scalar_fused_qk_norm_qwen3 --impl=scalar_fused_qk_norm_gemma --impl=scalar_caller_cache | tail -1
# One run for the three rows (each its own verdict line): a KV-cache write,
# a qk-norm and a cos/sin-cache bug.
rows=(mutant_kv_scales_swapped mutant_qk_norm_after_rotation mutant_cos_sin_cache_halves_swapped)
plugins=()
for m in "${rows[@]}"; do plugins+=(--plugin "$mutants/$m.so"); done
if out=$("$bin" golden verify --dir "$st" "${plugins[@]}" 2>&1); then
  echo "$out" | grep '^## '; echo "a fused row passed the fused vectors"; exit 1
fi
for m in "${rows[@]}"; do
  [[ $out =~ "## $m: "[0-9]+" passed, "([1-9][0-9]*)" failed" ]] || { echo "$out" | grep '^## '; echo "$m passed"; exit 1; }
  echo "$m fails golden verify on ${BASH_REMATCH[1]} fused cases, as it must"
done

source "$src/golden/test/contract_checks.sh"
# The hex JSON format too (fp8 codes as integers, fp16/bf16/fp32 caches as
# exact hex floats), exported fresh: the committed vectors are safetensors.
"$bin" golden export --quiet --suite fused --format json --jobs 2 --out "$work/fused-json" >/dev/null
for dir in "${committed[@]}" "$work/fused-json"; do
  "${contract[@]}" "$dir"
done
expect_tenfold_accepts "$st" "fused output"
# An output's stated cache steps altered (checksums recomputed): caught.
cp -r "$st" "$work/forged"
forge "$work/forged" cacheSteps <<'PY'
import json, sys
sys.path.insert(0, sys.argv[2])
from forge_export import rewrite
d = sys.argv[1]
m = json.load(open(f"{d}/manifest.json"))
o = next(o for c in m["cases"] for o in c["outputs"] if o["cacheSteps"]["exact_f64"] != "inf")
o["cacheSteps"]["exact_f64"] = o["cacheSteps"]["exact_f64"] + 1
rewrite(d, m)
PY
# A value of a caller's cos/sin cache altered (one step of its dtype
# nearer zero, the file's and the manifest's checksums recomputed): caught.
cp -r "$work/fused-json" "$work/forged-cache"
"$py" - "$work/forged-cache" "$src/golden/test" <<'PY'
import hashlib, json, sys
sys.path.insert(0, sys.argv[2])
from forge_export import rewrite
d = sys.argv[1]
m = json.load(open(f"{d}/manifest.json"))
case = next(c for c in m["cases"] if "cosSinCache" in c)
path = case["files"][0]["path"]
doc = json.load(open(f"{d}/{path}"))
t = next(t for t in doc["tensors"] if t["name"] == "cos_sin_cache")
i = next(i for i, v in enumerate(t["values"]) if v != "nan" and float.fromhex(v) != 0)
v = float.fromhex(t["values"][i])
t["values"][i] = (v * (1 - 2.0 ** -6)).hex()
data = json.dumps(doc).encode()
case["files"][0]["sha256"], case["files"][0]["bytes"] = hashlib.sha256(data).hexdigest(), len(data)
rewrite(d, m, {path: data})
PY
if out=$("$py" "$src/python/golden_checks/check_contract.py" "$work/forged-cache"); then echo "an altered cos/sin cache passed check_contract.py"; exit 1; fi
[[ $out == *"cos_sin_cache: the "*" half of a named row is not the exact value"* ]] || { echo "$out"; exit 1; }
echo "check_contract.py: an altered caller's cos/sin cache is caught"
echo "fused golden vectors: all checks passed"
