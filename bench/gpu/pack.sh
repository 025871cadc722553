#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Packs what bench/gpu/run.sh needs into one folder, built on this machine,
# for a GPU machine that has the CUDA driver but neither the network nor this
# project's libraries (the device machines lent to sessions here): the five
# programs, every shared library they load beyond the C/C++ runtime, and a
# manifest (commit, sha256 of each file). The programs link the CUDA runtime
# statically; the driver (libcuda) comes from the GPU machine. Also the
# FlashInfer plugin (python/frameworks/flashinfer/, docs/FRAMEWORKS.md's
# FlashInfer rows), in plugins/: the frameworks venvs' build
# ($ROPECHECK_FRAMEWORKS_VENVS/flashinfer), else built here by its build.sh
# (nvcc and PyPI needed); it too links the CUDA runtime statically.
#   bash bench/gpu/pack.sh [DIR]     (default: .gpu-pack, ignored by git)
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${1:-.gpu-pack}
cmake --preset release > /dev/null
cmake --build --preset release -j "$(nproc)" --target ropecheck cuda_device_test properties_test rope_gpu_bench fast_sincos_sweep
rm -rf "$dir" && mkdir -p "$dir/bin" "$dir/lib" "$dir/plugins"
bins=(build/release/ropecheck build/release/impls/test/cuda_device_test
      build/release/properties/test/properties_test build/release/bench/rope_gpu_bench
      build/release/bench/fast_sincos_sweep)
cp "${bins[@]}" "$dir/bin/"
# glibc, libstdc++ and libgcc_s stay the GPU machine's own: they are backward
# compatible, and a second C library in one process is not.
for b in "${bins[@]}"; do ldd "$b"; done | awk '$3 ~ /^\// {print $3}' | sort -u |
  grep -Ev '/(libc|libm|libstdc\+\+|libgcc_s|libpthread|libdl|librt|ld-linux[^/]*)\.so' |
  while read -r lib; do cp -L "$lib" "$dir/lib/"; done
fi_dir="${ROPECHECK_FRAMEWORKS_VENVS:-build/frameworks}/flashinfer"
if [[ ! -f "$fi_dir/flashinfer_rope_plugin.so" ]]; then
  fi_dir=build/flashinfer
  python/frameworks/flashinfer/build.sh "$fi_dir" > build/flashinfer-build.log 2>&1 ||
    { echo "pack.sh: the FlashInfer plugin did not build (build/flashinfer-build.log): packed without it"; fi_dir=; }
fi
[[ -z "$fi_dir" ]] || cp "$fi_dir/flashinfer_rope_plugin.so" "$fi_dir/VERSION" "$dir/plugins/"
{ echo "commit: $(git rev-parse HEAD)$(git diff --quiet HEAD || echo ' (with uncommitted changes)')"
  echo "built on: $(. /etc/os-release; echo "$PRETTY_NAME"), $(ldd --version | head -1)"
  (cd "$dir" && sha256sum bin/* lib/* plugins/*); } > "$dir/MANIFEST"
du -sh "$dir"
