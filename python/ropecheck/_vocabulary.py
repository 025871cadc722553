# SPDX-License-Identifier: MIT
"""ropecheck's vocabulary (this file: _vocabulary.py): the names a kernel declares with, as the core knows them."""
from __future__ import annotations

from typing import Any, Callable

from . import _core

KernelContractError = _core.KernelContractError
#: Raised by a kernel to decline one case (``raise ropecheck.Unsupported("why")``): the case is skipped for
#: every property that called it and counted by the reason (``CheckResult.skipped``), never failed. The reason is
#: a category ("position beyond int32"), so the skip table counts like cases together. A kernel declining every
#: case fails on the verdict floor: it cannot decline its way to a pass.
Unsupported = _core.Unsupported
RopeCall = _core.RopeCall
RopeConfig = _core.RopeConfig
BuiltinKernel = _core.BuiltinKernel
KvCacheCall = _core.KvCacheCall

#: Named precision policies (docs/ERROR_MODEL.md); a kernel is judged by the budget of the one it declares.
POLICIES: tuple[str, ...] = tuple(_core.policy_names())
#: The kernel properties the gate runs, in report order (docs/PROPERTIES.md).
PROPERTIES: tuple[str, ...] = tuple(_core.property_names())
#: Frequency schemes: the case families of the gate's tables.
SCHEMES: tuple[str, ...] = ("default", "linear", "ntk", "dynamic_ntk", "yarn", "llama3", "longrope", "explicit")
LAYOUTS: tuple[str, ...] = ("interleaved", "half_split")
DTYPES: tuple[str, ...] = ("f32", "f16", "bf16")
#: Multi-axis forms a kernel may take (check's ``multi_axis``): which axis each pair rotates with
#: (M-RoPE sections, Qwen3-VL's interleaving, a per-pair table) and per-axis frequencies on top of them.
MULTI_AXIS_FORMS: tuple[str, ...] = ("sections", "interleaved", "table", "per_axis")
#: Scheme parameters a kernel may decline (check's ``restrictions``; ABI 1.1's restricting flags): YaRN only with
#: truncate, no explicit attention_factor, no runtime sequence length (dynamic NTK and LongRoPE within L).
RESTRICTIONS: tuple[str, ...] = ("yarn_truncated_only", "no_explicit_attention_factor", "no_runtime_seq_len",
                                 "no_yarn_mscale")
#: How a kernel forms its frequencies (Policy's ``freq_form``, ABI 1.7): ``b^(-2i/d)`` through pow, MLX's
#: ``exp(-i ln(b) / (d/2))``, or a table of the exact values (docs/ERROR_MODEL.md, "The frequency's form").
FREQ_FORMS: tuple[str, ...] = ("power", "exp_log", "table")
#: What a kernel does with subnormal values (Policy's ``subnormals``, ABI 1.7): gradual underflow, or flushed to
#: zero on input and output (FTZ/DAZ: XLA on CPU, CUDA with -ftz=true).
SUBNORMALS: tuple[str, ...] = ("kept", "flushed")

#: The dtypes a fused kernel's KV cache may be stored in (KvCacheWrite's ``cache_dtypes``).
CACHE_DTYPES: tuple[str, ...] = ("f32", "f16", "bf16", "fp8_e4m3fn", "fp8_e5m2")

Kernel = Callable[..., Any]
