"""The adapters, in table order, and their rows. Importing an adapter imports no
framework (they import inside functions), so the runner under Debian's python
reads every row's declaration without torch or vLLM."""
import importlib

ADAPTERS = ["hf_transformers", "onnxruntime_rope", "torch_compile", "liger", "vllm_native"]


def all_rows():
    for name in ADAPTERS:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name != name:
                raise
            continue  # an adapter not written yet
        for row in mod.ROWS:
            yield name, dict(row, venv=mod.VENV)
