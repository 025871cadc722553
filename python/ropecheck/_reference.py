# SPDX-License-Identifier: MIT
"""The exact reference and configs from Python (this file: _reference.py): builtin_kernel, config_from_hf,
reference."""
from __future__ import annotations

import json
import os
from typing import Any, Mapping, Optional, Union

from . import _core
from ._vocabulary import BuiltinKernel, RopeConfig


def builtin_kernel(name: str) -> BuiltinKernel:
    """A built-in implementation (``ropecheck list``) as a Python kernel."""
    return _core.BuiltinKernel(name)


def config_from_hf(config: Union[Mapping[str, Any], str, os.PathLike]) -> RopeConfig:
    """A rope config from a Hugging Face config.json (a dict, a path, or JSON text), its rope_scaling /
    rope_parameters dict, or ropecheck's own schema: the same reading as ``ropecheck check --config``.
    Raises ValueError naming the field and the bound."""
    return _core.parse_config(_config_text(config))


def _config_text(config: Union[Mapping[str, Any], str, os.PathLike]) -> str:
    """A config as JSON text: a dict, JSON text, or the path of a file of at most 1 MiB."""
    if isinstance(config, Mapping):
        return json.dumps(dict(config))
    s = os.fspath(config)
    if s.lstrip().startswith("{"):
        return s
    with open(s, "rb") as f:
        data = f.read((1 << 20) + 1)
    if len(data) > 1 << 20:
        raise ValueError(f"{s}: a config must be at most {1 << 20} bytes")
    return data.decode("utf-8", errors="strict")


def _as_numpy(x: Any) -> tuple[Any, Optional[str]]:
    import numpy as np
    if hasattr(x, "detach"):  # a torch tensor
        t = x.detach().cpu()
        name = str(t.dtype)
        if name == "torch.bfloat16":
            return t.float().numpy(), "bf16"
        return t.numpy(), {"torch.float32": "f32", "torch.float16": "f16", "torch.float64": "f64"}.get(name)
    a = np.asarray(x)
    return a, {"float32": "f32", "float16": "f16", "float64": "f64"}.get(str(a.dtype))


def reference(q: Any, k: Any, positions: Any, config: Union[RopeConfig, Mapping[str, Any]], *,
              layout: Optional[str] = None, dtype: Optional[str] = None, direction: str = "forward",
              policy: Optional[str] = None) -> dict[str, Any]:
    """The exact rotation of q, k ([tokens, heads, head_dim]) at ``positions``.

    Returns ``q``/``k`` correctly rounded to ``dtype`` (inferred from q; bf16
    as float32 holding bf16 values), ``q_f64``/``k_f64`` (the exact result
    rounded to float64), ``inv_freq``, ``attention_factor`` and, with a
    ``policy`` (one of POLICIES), ``q_budget``/``k_budget``: the allowed
    |result - q_f64| per element of a kernel with that policy (0 on
    pass-through channels, which must be bit-identical). Inputs are rounded
    to ``dtype`` first.
    """
    cfg = config if isinstance(config, RopeConfig) else config_from_hf(config)
    qa, qd = _as_numpy(q)
    ka, _ = _as_numpy(k)
    pa, _ = _as_numpy(positions)
    dt = dtype or qd
    if dt is None:
        raise ValueError("dtype: cannot be inferred from q's dtype; pass one of f32, f16, bf16, f64")
    lay = layout or cfg.layout or "half_split"
    return _core.reference(qa, ka, pa, cfg, layout=lay, dtype=dt, direction=direction, policy=policy)
