#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the llama.cpp plugin (ggml_rope_plugin.so) into DIR from the sdist of
# the llama-cpp-python version pinned in constraints.txt's [llama_cpp]
# section: pip downloads the sdist (no wheel, no dependencies), ggml's
# sources are taken from its vendor/llama.cpp, and nothing of them is kept in
# the repository. install.sh calls it; run alone:
#   python/frameworks/llama_cpp/build.sh DIR [PYTHON]
# PYTHON runs pip (default /usr/bin/python3; install.sh passes a venv's).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
out="${1:?usage: build.sh DIR [PYTHON]}"
python="${2:-/usr/bin/python3}"
pin="$(awk '$0 == "# [llama_cpp]" {on = 1; next} /^# \[/ {on = 0} on && /==/ {print; exit}' "$here/../constraints.txt")"
[[ "$pin" == llama-cpp-python==* ]] || { echo "build.sh: no llama-cpp-python pin in [llama_cpp]" >&2; exit 2; }
version="${pin#llama-cpp-python==}"
mkdir -p "$out"
rm -rf "$out/sdist" "$out/src"
start=$(date +%s)
# --no-binary for this package alone: its build requirements still come as wheels
"$python" -m pip download --quiet --no-deps --no-binary llama-cpp-python --disable-pip-version-check \
  "$pin" -d "$out/sdist"
mkdir -p "$out/src"
tar -xzf "$out/sdist/llama_cpp_python-$version.tar.gz" -C "$out/src" \
  "llama_cpp_python-$version/vendor/llama.cpp/ggml" "llama_cpp_python-$version/vendor/llama.cpp/LICENSE"
echo "llama_cpp: sdist $version fetched and unpacked in $(( $(date +%s) - start )) s"
cmake -S "$here" -B "$out/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DGGML_SOURCE="$out/src/llama_cpp_python-$version/vendor/llama.cpp/ggml" -DROPECHECK_REPO="$repo" > "$out/cmake.log"
cmake --build "$out/build" --target ggml_rope_plugin
cp "$out/build/ggml_rope_plugin.so" "$out/ggml_rope_plugin.so"
echo "llama-cpp-python $version" > "$out/VERSION"
echo "llama_cpp: built $out/ggml_rope_plugin.so in $(( $(date +%s) - start )) s"
