# SPDX-License-Identifier: MIT
"""The adapters, in table order, and their rows. Importing an adapter imports no
framework (they import inside functions), so the runner under Debian's python
reads every row's declaration without torch or vLLM."""
import importlib

ADAPTERS = ["hf_transformers", "hf_mrope", "torch_compile", "liger_rope", "onnxruntime_rope", "vllm_native"]
# issue 50: llama.cpp's ggml (a C ABI plugin), SGLang, Megatron-core
ADAPTERS += ["llama_cpp_ggml", "sglang_native", "megatron_rope"]
# issue 50: MLX's mx.fast.rope, penzai's ApplyRoPE on JAX
ADAPTERS += ["mlx_rope", "penzai_rope"]
# issue 50: FlashInfer's CUDA rope kernels (a C ABI plugin built by nvcc; run where a GPU is)
ADAPTERS += ["flashinfer_rope"]
# issue 50's last rows: Megatron-core's M-RoPE (llama.cpp's VISION is a row of llama_cpp_ggml)
ADAPTERS += ["megatron_mrope"]


def all_rows():
    for name in ADAPTERS:
        mod = importlib.import_module(name)
        for row in mod.ROWS:
            yield name, dict(row, venv=mod.VENV)
