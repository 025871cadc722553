#!/usr/bin/env bash
# Installs the frameworks of docs/FRAMEWORKS.md into virtual environments (main,
# vllm, mlx, jax: constraints.txt says why apart), from PyPI with the exact pins of
# constraints.txt. scripts/setup.sh --frameworks calls it; README's whole-suite
# command (what .ci/run runs) does, the quick gate does not (it stays fast).
#
# Idempotent: a venv whose stamp holds the SHA-256 of its constraints section
# is left alone; a changed section rebuilds that venv from scratch.
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
