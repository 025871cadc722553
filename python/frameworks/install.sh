#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the frameworks of docs/FRAMEWORKS.md into virtual environments (main,
# vllm, mlx, jax: constraints.txt says why apart), from PyPI with the exact pins of
# constraints.txt. scripts/setup.sh --frameworks calls it; README's whole-suite
# command (what .ci/run runs) does, the quick gate does not (it stays fast).
#
# Then the published bugs' layers (constraints.txt's [bugs-NAME] sections, see
# the comment there): each release pip-installed with --no-deps into
# <root>/layers/NAME, run later by the main venv's python with the layer first
# on sys.path (published_bugs/bugs.py), about 50-150 MB each instead of a venv.
#
# Idempotent: a venv or layer whose stamp holds the SHA-256 of its constraints
# section is left alone; a changed section rebuilds it from scratch.
# Where: $ROPECHECK_FRAMEWORKS_VENVS, default <repo>/build/frameworks.
# The venvs are made by Debian's /usr/bin/python3 (the interpreter the ropecheck
# module is built for) without system site packages: the pins are the whole
# environment, not Debian's packages mixed with PyPI's.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
root="${ROPECHECK_FRAMEWORKS_VENVS:-$repo/build/frameworks}"
constraints="$here/constraints.txt"

# The packages each venv asks for by name; every version comes from constraints.txt.
declare -A wanted=(
  [main]="transformers torch onnxruntime onnx liger-kernel packaging numpy"
  [vllm]="vllm numpy"
  [mlx]="mlx mlx-cpu numpy"
  [jax]="jax jaxlib penzai numpy"
)
venvs=(main vllm mlx jax)  # install order (an associative array has none)

section() {  # the pins under "# [name]" up to the next "# [" header
  awk -v s="# [$1]" '$0 == s {on = 1; next} /^# \[/ {on = 0} on && /==/ {print}' "$constraints"
}

mkdir -p "$root"
for venv in "${venvs[@]}"; do
  dir="$root/$venv"
  pins="$root/$venv.constraints.txt"
  section "$venv" > "$pins.new"
  sum="$(sha256sum "$pins.new" | cut -d' ' -f1)"
  if [[ -f "$dir/.ropecheck-stamp" && "$(cat "$dir/.ropecheck-stamp")" == "$sum" ]]; then
    echo "frameworks: $venv venv up to date ($dir)"
    rm -f "$pins.new"
    continue
  fi
  mv "$pins.new" "$pins"
  echo "frameworks: installing the $venv venv into $dir (pip --no-cache-dir, pinned)"
  start=$(date +%s)
  rm -rf "$dir"
  /usr/bin/python3 -m venv "$dir"
  "$dir/bin/python" -m pip install --quiet --no-cache-dir --disable-pip-version-check \
    -c "$pins" ${wanted[$venv]}
  echo "$sum" > "$dir/.ropecheck-stamp"
  echo "frameworks: $venv installed in $(( $(date +%s) - start )) s"
done

# The layers, installed the same way: the section's pins and nothing else.
start_layers=$(date +%s)
for name in $(sed -n 's/^# \[\(bugs-[^]]*\)\]$/\1/p' "$constraints"); do
  dir="$root/layers/${name#bugs-}"
  section "$name" > "$root/$name.constraints.txt"
  sum="$(sha256sum "$root/$name.constraints.txt" | cut -d' ' -f1)"
  if [[ -f "$dir/.ropecheck-stamp" && "$(cat "$dir/.ropecheck-stamp")" == "$sum" ]]; then
    continue
  fi
  echo "frameworks: installing the layer $name into $dir (pip --no-deps --target, pinned)"
  rm -rf "$dir"
  "$root/main/bin/python" -m pip install --quiet --no-cache-dir --disable-pip-version-check --no-deps \
    --target "$dir" -r "$root/$name.constraints.txt"
  echo "$sum" > "$dir/.ropecheck-stamp"
done
# a layer whose section is gone (a bug's release changed) is removed
for dir in "$root"/layers/*/; do
  [[ -d "$dir" ]] || continue
  name="bugs-$(basename "$dir")"
  grep -qxF "# [$name]" "$constraints" || { echo "frameworks: removing the layer $dir (no [$name])"; rm -rf "$dir"; }
done
echo "frameworks: published-bug layers ready in $(( $(date +%s) - start_layers )) s"

# Built or layered on the venvs above, each with a stamp of its section (and sources) as they have:
#   llama_cpp  the llama.cpp plugin, built from the pinned sdist (llama_cpp/build.sh)
#   flashinfer the FlashInfer plugin, nvcc on the pinned wheel's CUDA headers (flashinfer/build.sh);
#              skipped, saying so, where there is no nvcc (ctest frameworks then skips, naming it)
#   layered    SGLang and Megatron-core, --no-deps, on the vllm venv's packages (a .pth file)
stamped() {  # stamped NAME SUM: whether NAME's stamp holds SUM
  [[ -f "$root/$1/.ropecheck-stamp" && "$(cat "$root/$1/.ropecheck-stamp")" == "$2" ]]
}
# The plugin's sources and the ABI headers it compiles against: a plugin built before an ABI minor version
# declares none of that version's capabilities (a stale one declared no NO_YARN_MSCALE after 1.7).
sum="$( (section llama_cpp; cat "$here"/llama_cpp/* "$repo"/include/ropecheck/*.h) | sha256sum | cut -d' ' -f1)"
if stamped llama_cpp "$sum"; then
  echo "frameworks: llama_cpp plugin up to date ($root/llama_cpp)"
else
  start=$(date +%s)
  rm -rf "$root/llama_cpp"
  "$here/llama_cpp/build.sh" "$root/llama_cpp" "$root/vllm/bin/python"
  echo "$sum" > "$root/llama_cpp/.ropecheck-stamp"
  echo "frameworks: llama_cpp plugin built in $(( $(date +%s) - start )) s"
fi
sum="$( (section flashinfer; cat "$here"/flashinfer/* "$repo"/include/ropecheck/*.h) | sha256sum | cut -d' ' -f1)"
if stamped flashinfer "$sum"; then
  echo "frameworks: flashinfer plugin up to date ($root/flashinfer)"
elif ! command -v nvcc > /dev/null && [[ ! -x /usr/local/cuda/bin/nvcc ]]; then
  echo "frameworks: no nvcc: the flashinfer plugin is not built (install the CUDA toolkit)"
else
  start=$(date +%s)
  rm -rf "$root/flashinfer"
  "$here/flashinfer/build.sh" "$root/flashinfer" "$root/vllm/bin/python"
  echo "$sum" > "$root/flashinfer/.ropecheck-stamp"
  echo "frameworks: flashinfer plugin built in $(( $(date +%s) - start )) s"
fi
section layered > "$root/layered.constraints.txt.new"
sum="$( (cat "$root/layered.constraints.txt.new"; cat "$root/vllm/.ropecheck-stamp") | sha256sum | cut -d' ' -f1)"
if stamped layered "$sum"; then
  echo "frameworks: layered venv up to date ($root/layered)"
  rm -f "$root/layered.constraints.txt.new"
else
  mv "$root/layered.constraints.txt.new" "$root/layered.constraints.txt"
  start=$(date +%s)
  rm -rf "$root/layered"
  /usr/bin/python3 -m venv "$root/layered"
  site="$("$root/layered/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  base="$("$root/vllm/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  echo "$base" > "$site/ropecheck_vllm_base.pth"  # after the venv's own site-packages on sys.path
  "$root/layered/bin/python" -m pip install --quiet --no-cache-dir --disable-pip-version-check --no-deps \
    -r "$root/layered.constraints.txt"
  echo "$sum" > "$root/layered/.ropecheck-stamp"
  echo "frameworks: layered venv installed in $(( $(date +%s) - start )) s"
fi
