#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the FlashInfer plugin (flashinfer_rope_plugin.so) into DIR from the
# wheel of the flashinfer-python version pinned in constraints.txt's
# [flashinfer] section: pip downloads the wheel (no dependencies), its
# flashinfer/data/include (the CUDA headers FlashInfer's JIT compiles) is
# unpacked under DIR, nvcc compiles the plugin against it, and nothing of it is
# kept in the repository. Then the host-side unit test (flashinfer_args_test)
# runs. No GPU is needed to build; one is needed to run (plugin_runner.py
# says "built, not run: no GPU" without). install.sh calls it; run alone:
#   python/frameworks/flashinfer/build.sh DIR [PYTHON]
# PYTHON runs pip (default /usr/bin/python3; install.sh passes a venv's).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
out="${1:?usage: build.sh DIR [PYTHON]}"
python="${2:-/usr/bin/python3}"
pin="$(awk '$0 == "# [flashinfer]" {on = 1; next} /^# \[/ {on = 0} on && /==/ {print; exit}' "$here/../constraints.txt")"
[[ "$pin" == flashinfer-python==* ]] || { echo "build.sh: no flashinfer-python pin in [flashinfer]" >&2; exit 2; }
version="${pin#flashinfer-python==}"
nvcc="$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null || true)"
[[ -n "$nvcc" ]] || { echo "build.sh: no nvcc (the CUDA toolkit): the FlashInfer plugin needs it" >&2; exit 2; }
mkdir -p "$out"
rm -rf "$out/wheel" "$out/src"
start=$(date +%s)
"$python" -m pip download --quiet --no-deps --only-binary :all: --disable-pip-version-check "$pin" -d "$out/wheel"
wheel="$(ls "$out"/wheel/flashinfer_python-"$version"-*.whl)"
mkdir -p "$out/src"
# only the headers: FlashInfer's (flashinfer/data/include) and the CCCL it ships
# (flashinfer/data/cccl, put before the toolkit's as its JIT does: jit/env.py:407-411,
# jit/cpp_ext.py:131-133; pos_enc.cuh's page.cuh needs its cuda::fast_mod_div), and the licenses
"$python" - "$wheel" "$out/src" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    z.extractall(sys.argv[2], [m for m in z.namelist() if m.startswith(("flashinfer/data/include/",
                 "flashinfer/data/cccl/")) or "/licenses/" in m])
PY
rm -rf "$out/wheel"
echo "flashinfer: wheel $version fetched and its headers unpacked in $(( $(date +%s) - start )) s"
cmake -S "$here" -B "$out/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$nvcc" \
  -DFLASHINFER_DATA="$out/src/flashinfer/data" -DROPECHECK_REPO="$repo" > "$out/cmake.log"
cmake --build "$out/build" --target flashinfer_rope_plugin flashinfer_args_test
"$out/build/flashinfer_args_test"
cp "$out/build/flashinfer_rope_plugin.so" "$out/flashinfer_rope_plugin.so"
echo "flashinfer-python $version (nvcc, sm_90)" > "$out/VERSION"
echo "flashinfer: built $out/flashinfer_rope_plugin.so in $(( $(date +%s) - start )) s"
