#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Real framework code on golden inputs (python/golden_checks/check_torch.py): the
# Hugging Face and Meta/Mistral RoPE forms in PyTorch, on the standard and
# long-context exports, pass under the policies that describe them; the same
# code with the layouts swapped, with cos/sin through bf16 under an fp32
# policy, or HF bf16/fp16 judged as fp32 arithmetic, fails. Exit 77 (ctest:
# skipped) when torch cannot be imported.
# Usage: golden_torch_test.sh ROPECHECK SOURCE_DIR WORK_DIR PYTHON
set -euo pipefail
bin=$1 src=$2 work=$3 py=$4
if ! "$py" -c "import torch" 2>/dev/null; then
  echo "SKIP: $py cannot import torch (install python3-torch: scripts/setup.sh --tests)"; exit 77
fi
rm -rf "$work" && mkdir -p "$work"
for suite in standard long-context; do
  # The exact outputs are what the frameworks' code is judged against.
  "$bin" golden export --quiet --suite $suite --format safetensors --no-outputs --out "$work/$suite" >/dev/null
  for variant in correct swap-layout cos-sin-bf16 f32-math-policy; do
    "$py" -W ignore "$src/python/golden_checks/check_torch.py" --quiet --variant $variant "$work/$suite"
  done
done
echo "golden torch: all checks passed"
