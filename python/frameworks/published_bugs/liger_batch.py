# SPDX-License-Identifier: MIT
"""liger-kernel's RoPE at a published bug's releases, its Triton kernel run by
Triton's interpreter on the CPU (TRITON_INTERPRET=1, the [main] venv's triton),
called with a batch of two sequences, each with its own position_ids, as a
trainer that computes position_ids itself calls it (the report of Liger-Kernel
PR #477).

The case's tokens are split in two sequences (the first ceil(t/2) tokens, then
the rest, padded with a copy of its last token whose output is dropped), so
cos/sin are [2, tokens/2, rotary_dim], one row per sequence, from transformers'
rotary module ([main]'s, hf_transformers.cos_sin's module, every scheme);
q and k go in as [2, heads, tokens/2, head_dim], transformers' layout.

The kernel is called through LigerRopeFunction (liger_kernel/ops/rope.py), which
liger_rotary_pos_emb (liger_kernel/transformers/rope.py) only forwards to:
liger_kernel.transformers itself no longer imports with transformers 5 (its
monkey patches import 4.x names). Half split, full rotary: these releases index
cos/sin with head_dim (no partial rotary). fp32, the policy of liger_rope.py's
fp32 row (f32_angle_product); bf16 does not run under the interpreter
(liger_rope.py says why).
"""
import numpy as np

import hf_transformers

FRAMEWORK = "liger-kernel"
VENV = "main"
ENV = {"TRITON_INTERPRET": "1"}


def version():
    import importlib.metadata
    import triton
    return f"liger-kernel {importlib.metadata.version('liger-kernel')}, triton {triton.__version__} (interpreter)"


def two_sequences(x):
    """[t, ...] -> [2, ceil(t/2), ...]: the second sequence padded with a copy of its last token."""
    m = (x.shape[0] + 1) // 2
    second = x[m:] if x.shape[0] > m else x[m - 1:m]
    pad = np.repeat(second[-1:], m - second.shape[0], axis=0)
    return np.stack([x[:m], np.concatenate([second, pad])])


def make_kernel(row):
    import os

    import torch
    if os.environ.get("TRITON_INTERPRET") != "1":
        raise RuntimeError("liger_batch: TRITON_INTERPRET=1 must be set before triton is imported (the row's env)")
    from liger_kernel.ops.rope import LigerRopeFunction
    torch.set_num_threads(1)

    def liger_batch(q, k, positions, rope):
        t = q.shape[0]
        if q.size == 0:  # no token or no head: nothing to rotate (liger_rope.py)
            return q.copy(), k.copy()
        split = two_sequences if t >= 2 else (lambda x: x[None])  # one token: one sequence
        kk = k if k.size else q[:, :1]  # liger rotates q and k together: a stand-in k, dropped (liger_rope.py)
        pos = torch.from_numpy(split(positions.astype(np.int64)))
        tq = hf_transformers.to_torch(split(q), rope.dtype).transpose(1, 2).contiguous()
        tk = hf_transformers.to_torch(split(kk), rope.dtype).transpose(1, 2).contiguous()
        with torch.no_grad():
            cos, sin = hf_transformers.rotary_module(rope)(tq, pos)  # [2, tokens/2, rotary_dim]
            qo, ko = LigerRopeFunction.apply(tq, tk, cos, sin)

        def back(x, like):  # [2, heads, m, d] -> [t, heads, d]
            return hf_transformers.to_numpy(x.transpose(1, 2).reshape(-1, x.shape[1], x.shape[-1])[:t], like)
        return back(qo, q), (back(ko, k) if k.size else k.copy())

    return liger_batch
