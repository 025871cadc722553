# SPDX-License-Identifier: MIT
"""liger-kernel's replacement for Qwen3-VL's vision RoPE at a published bug's
releases (Liger-Kernel issue #964, PR #967), its Triton kernel run by Triton's
interpreter on the CPU (TRITON_INTERPRET=1, the [main] venv's triton).

apply_liger_kernel_to_qwen3_vl (and _moe) replaces transformers'
modeling_qwen3_vl.apply_rotary_pos_emb_vision(q, k, cos, sin) with liger's own
function: in 0.6.4 liger_rotary_pos_emb_with_cast_and_leading_batch
(liger_kernel/transformers/monkey_patch.py:1684 and 1759), from 0.6.5
liger_rotary_pos_emb_vision (monkey_patch.py:1755 and 1832), both in
liger_kernel/transformers/rope.py. The adapter calls whichever of the two the
release's rope.py defines (the one its monkey patch installs), the same call
for both releases.

The contract is the function it replaces (transformers' Qwen3-VL vision
attention calls it so): q and k [tokens, heads, head_dim], contiguous, cos and
sin [tokens, head_dim], token t rotated by row t (rotate_half: half split,
full rotary). The vision tower's cos/sin come from 2-D patch positions; the
function does not care where a row comes from, so the case's positions give
the rows, from transformers' rotary module ([main]'s, hf_transformers.py),
fp32: the policy of liger_rope.py's fp32 row (f32_angle_product). q and k are
rotated in one call when they have as many heads (the vision tower's case);
otherwise each in its own call, as the function rotates each on its own.
"""
import importlib

import numpy as np

import hf_transformers

FRAMEWORK = "liger-kernel"
VENV = "main"
ENV = {"TRITON_INTERPRET": "1"}


def version():
    import importlib.metadata
    import triton
    return f"liger-kernel {importlib.metadata.version('liger-kernel')}, triton {triton.__version__} (interpreter)"


def vision_function():
    """The function the release's monkey patch installs as apply_rotary_pos_emb_vision (module docstring)."""
    rope_mod = importlib.import_module("liger_kernel.transformers.rope")
    fn = getattr(rope_mod, "liger_rotary_pos_emb_vision", None)
    return fn if fn is not None else rope_mod.liger_rotary_pos_emb_with_cast_and_leading_batch


def make_kernel(row):
    import os

    import torch
    if os.environ.get("TRITON_INTERPRET") != "1":
        raise RuntimeError("liger_vision: TRITON_INTERPRET=1 must be set before triton is imported (the row's env)")
    fn = vision_function()
    torch.set_num_threads(1)

    def liger_vision(q, k, positions, rope):
        if q.size == 0 and k.size == 0:  # no token or no head: nothing to rotate
            return q.copy(), k.copy()
        tq, tk = hf_transformers.to_torch(q, rope.dtype), hf_transformers.to_torch(k, rope.dtype)
        pos = torch.from_numpy(positions.astype(np.int64))[None, :]
        with torch.no_grad():
            cos, sin = hf_transformers.rotary_module(rope)(tq, pos)  # [1, tokens, head_dim]
            cos, sin = cos[0].contiguous(), sin[0].contiguous()
            if q.shape[1] == k.shape[1]:
                qo, ko = fn(tq.contiguous(), tk.contiguous(), cos, sin)
            else:
                qo = fn(tq.contiguous(), tq.contiguous(), cos, sin)[0] if q.size else tq
                ko = fn(tk.contiguous(), tk.contiguous(), cos, sin)[0] if k.size else tk
        return hf_transformers.to_numpy(qo, q), hf_transformers.to_numpy(ko, k)

    return liger_vision
