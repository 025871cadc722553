#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Everything that needs a GPU, in one call (the device tool lends a machine
# for one scripted run of limited time):
#   1. rope_gpu_bench (the CUDA kernels beside a device-to-device copy, CUDA
#      events) and torch_eager.py (HF rotate_half in PyTorch eager), alone on
#      the GPU so their timings are clean; fast_sincos_sweep (__sincosf on
#      every fp32 below 2^24 against its documented bounds and the CPU model);
#   2. at once, each under its own time limit: the GPU tests (ctest label
#      cuda: the whole gate on cuda_cache and cuda_otf, the position check),
#      the RapidCheck properties on the CUDA kernels, the quick gate over the
#      default set (which includes the CUDA kernels where a device exists),
#      the standard suite on the CUDA kernels, compute-sanitizer memcheck and
#      racecheck; and FlashInfer's rope kernels built as a plugin
#      (python/frameworks/flashinfer/, docs/FRAMEWORKS.md): `ropecheck check
#      --plugin` on the three tables of its rows (quick suite, seed 1, as
#      run_frameworks.py runs them), and, reported apart, the table that does
#      not decline a rotary_dim FlashInfer's vectors do not fit and the
#      rope + quantize + append table (ABI 1.8, Rope/QuantizesTheRotatedQ
#      with the paged fp8 cache) on its first run.
# Where the GPU machine can build (the project's packages installed):
#   bash bench/gpu/run.sh
# Where it cannot (no network, no libraries), pack here and carry the folder:
#   bash bench/gpu/pack.sh .gpu-pack      (on the build machine)
#   bash bench/gpu/run.sh --packed .gpu-pack
# Output: a markdown summary, a log and the gate's JSON in ${OUT:-build/gpu-results}.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build/gpu-results}
mkdir -p "$out"
log="$out/gpu_log.txt"
summary="$out/gpu_summary.md"
: > "$log"
: > "$summary"
say() { echo "$*" | tee -a "$summary"; }

if [[ "${1:-}" == --packed ]]; then
  pack=$(cd "${2:?--packed needs a folder}" && pwd)
  export LD_LIBRARY_PATH="$pack/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  ropecheck=$pack/bin/ropecheck device_test=$pack/bin/cuda_device_test
  properties_test=$pack/bin/properties_test gpu_bench=$pack/bin/rope_gpu_bench sweep=$pack/bin/fast_sincos_sweep
  (cd "$pack" && grep -v '^[a-z ]*:' MANIFEST | sha256sum --quiet -c) ||
    { say "PACK DAMAGED: checksums differ from $pack/MANIFEST"; exit 1; }
  say "pack: $(head -1 "$pack/MANIFEST")"
  missing=$(ldd "$pack"/bin/* 2>&1 | grep -E 'not found|version .* not found' | sort -u)
  [[ -z "$missing" ]] || { say "PACK CANNOT RUN HERE: $missing"; exit 1; }
else
  bash scripts/setup.sh --tests >> "$log" 2>&1
  cmake --preset release >> "$log" 2>&1 && cmake --build --preset release -j "$(nproc)" >> "$log" 2>&1 ||
    { say "BUILD FAILED (see $log)"; exit 1; }
  ropecheck=build/release/ropecheck device_test=build/release/impls/test/cuda_device_test
  properties_test=build/release/properties/test/properties_test gpu_bench=build/release/bench/rope_gpu_bench
  sweep=build/release/bench/fast_sincos_sweep
  fi_plugin=${ROPECHECK_FRAMEWORKS_VENVS:-build/frameworks}/flashinfer/flashinfer_rope_plugin.so
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >> "$summary" 2>&1 || say "nvidia-smi failed"
say "date: $(date -u '+%F %H:%M UTC'), $(nproc) CPUs, $(uname -r)"

say "## benchmark (tokens 16384, 32/8 heads, head_dim 128, in place)"
timeout 60 "$gpu_bench" 2>> "$log" | tee -a "$summary" || say "rope_gpu_bench failed (see $log)"
PYTHONUNBUFFERED=1 timeout 90 python3 bench/gpu/torch_eager.py 2>> "$log" | tee -a "$summary" ||
  say "torch comparison failed (see $log)"
say "## __sincosf against fp64, every fp32 below 2^24 (bench/gpu/fast_sincos_sweep.cu)"
timeout 120 "$sweep" 2>> "$log" | tee -a "$summary" || say "fast_sincos_sweep: FAIL (see above and $log)"

# step NAME SECONDS NOT COMMAND...: one check under its own limit, its output
# in the log; it fails also when its output matches the regex NOT (a test
# binary that skipped for want of a device, or whose filter matched nothing,
# exits 0; - for none).
step() {
  local name=$1 limit=$2 not=$3; shift 3
  local t0=$SECONDS rc=0
  timeout "$limit" "$@" > "$out/.$name.log" 2>&1 || rc=$?
  [[ $rc != 0 || $not == - ]] || ! grep -qE "$not" "$out/.$name.log" || rc=99
  { echo "===== $name (rc $rc, $((SECONDS - t0)) s): $*"; cat "$out/.$name.log"; } >> "$log"
  rm -f "$out/.$name.log"
  case $rc in
    0) echo "- $name: PASS ($((SECONDS - t0)) s)" ;;
    124) echo "- $name: TIMED OUT after $limit s" ;;
    99) echo "- $name: FAIL, its output matches '$not' ($((SECONDS - t0)) s)" ;;
    *) echo "- $name: FAIL, exit $rc ($((SECONDS - t0)) s)" ;;
  esac > "$out/.$name.verdict"
}
sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
cuda=(--impl cuda_cache --impl cuda_otf)
step gpu_tests 150 'SKIPPED|Running 0 tests' "$device_test" &
step properties 150 'Running 0 tests' "$properties_test" --gtest_filter='*cuda_*' &
step quick_gate_default_set 150 - "$ropecheck" check --quiet --json "$out/quick_gate.json" &
step standard_suite_cuda 150 - "$ropecheck" check --quiet --suite standard "${cuda[@]}" &
if [[ -f "$fi_plugin" ]]; then
  fi_rows=(--impl flashinfer_rope_pos_ids --impl flashinfer_rope_llama31_pos_ids --impl flashinfer_rope_cos_sin_cache)
  step flashinfer_plugin 150 - "$ropecheck" check --quiet --seed 1 --plugin "$fi_plugin" "${fi_rows[@]}" \
    --json "$out/flashinfer.json" &
  # reported, not judged here: whether the vector misfit the other tables decline shows (its JSON)
  step flashinfer_any_rotary_dim_report_only 150 - bash -c '"$0" check --quiet --seed 1 --plugin "$1" \
    --impl flashinfer_rope_pos_ids_any_rotary_dim --json "$2"; echo "exit $? (report only)"' \
    "$ropecheck" "$fi_plugin" "$out/flashinfer_any_rotary_dim.json" &
  # reported, not judged yet: rope_quantize_fp8_append_paged_kv_cache's first run (its JSON). Expected to
  # fail on a case with padding tokens: FlashInfer skips a token with batch index -1 whole, q included
  # (pos_enc.cuh:951-952), where the ABI asks for every token's q (flashinfer_args.h, paged_mapping).
  step flashinfer_quantize_append_report_only 150 - bash -c '"$0" check --quiet --seed 1 --plugin "$1" \
    --impl flashinfer_rope_quantize_append --json "$2"; echo "exit $? (report only)"' \
    "$ropecheck" "$fi_plugin" "$out/flashinfer_quantize_append.json" &
else
  say "flashinfer plugin: not found at $fi_plugin (bench/gpu/pack.sh packs it)"
fi
if [[ -n "$sanitizer" ]]; then
  for tool in memcheck racecheck; do
    step "sanitizer_$tool" 150 'SKIPPED|Running 0 tests' bash -c '"$0" --tool "$1" --error-exitcode 3 "$2" --gtest_filter="CudaDevice.KernelReports*" &&
      "$0" --tool "$1" --error-exitcode 3 "$3" check --quiet --cases 20 "${@:4}"' \
      "$sanitizer" "$tool" "$device_test" "$ropecheck" "${cuda[@]}" &
  done
else
  say "compute-sanitizer: not found on this machine"
fi
wait
say "## checks"
cat "$out"/.*.verdict | tee -a "$summary"
rm -f "$out"/.*.verdict
! grep -q -E 'FAIL|TIMED OUT' "$summary"
