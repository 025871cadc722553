#!/usr/bin/env bash
# Everything that needs a GPU, in one call (the device tool lends a machine
# for one scripted run): build with CUDA, run the whole property suite on the
# CUDA kernels (ctest label cuda), compute-sanitizer memcheck and racecheck on
# those tests, then the benchmark beside a device copy and PyTorch eager.
# Output: a log and a markdown summary in ${OUT:-build/gpu-results}.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build/gpu-results}
mkdir -p "$out"
log="$out/gpu_log.txt"
summary="$out/gpu_summary.md"
: > "$log"
say() { echo "$*" | tee -a "$summary"; }
: > "$summary"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv >> "$summary" 2>&1 || say "nvidia-smi failed"
say "date: $(date -u +%F)"
bash scripts/setup.sh --tests >> "$log" 2>&1
cmake --preset release >> "$log" 2>&1 && cmake --build --preset release -j "$(nproc)" >> "$log" 2>&1 ||
  { say "BUILD FAILED (see $log)"; exit 1; }
say "## property suite on the CUDA kernels (ctest -L cuda)"
ctest --preset release -L cuda --output-on-failure >> "$log" 2>&1 && say "cuda tests (gate, all properties): PASS" ||
  say "cuda tests: FAIL (see $log)"
./build/release/properties/properties_test --gtest_filter='*cuda_*' >> "$log" 2>&1 &&
  say "RapidCheck properties on cuda_cache, cuda_otf: PASS" || say "RapidCheck properties on CUDA: FAIL (see $log)"
sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
if [[ -n "$sanitizer" ]]; then
  for tool in memcheck racecheck; do
    if "$sanitizer" --tool "$tool" --error-exitcode 3 ./build/release/impls/test/cuda_device_test \
        --gtest_filter='CudaDevice.KernelReports*' >> "$log" 2>&1 &&
       "$sanitizer" --tool "$tool" --error-exitcode 3 ./build/release/ropecheck check --quiet --cases 20 \
        --impl cuda_cache --impl cuda_otf >> "$log" 2>&1; then
      say "compute-sanitizer $tool: clean"
    else
      say "compute-sanitizer $tool: ERRORS (see $log)"
    fi
  done
else
  say "compute-sanitizer: not found on this machine"
fi
say "## benchmark (tokens 16384, 32/8 heads, head_dim 128, in place)"
./build/release/bench/gpu/rope_gpu_bench 2>> "$log" | tee -a "$summary"
python3 bench/gpu/torch_eager.py 2>> "$log" | tee -a "$summary" || say "torch comparison failed (see $log)"
