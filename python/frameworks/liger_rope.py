# SPDX-License-Identifier: MIT
"""liger-kernel (0.8.5, pinned in constraints.txt) RoPE, its Triton kernel run by
Triton's interpreter on the CPU (TRITON_INTERPRET=1, triton 3.9.0): the
kernel's own code, each program instance a token, in numpy.

Line numbers are liger-kernel 0.8.5's.
- liger_kernel/transformers/rope.py liger_rotary_pos_emb(q, k, cos, sin):
  q, k as [batch, heads, tokens, head_dim] (transformers' layout), cos/sin
  transformers' own (hf_transformers.cos_sin: the real rotary-embedding
  forward, every scheme, in the activation dtype); dispatched to
  liger_kernel/ops/rope.py rope_forward and its Triton kernel _triton_rope.
- _triton_rope (ops/rope.py:6-131): the first rd/2 entries of a cos/sin row,
  q and k loaded and cast to cos's dtype, x1*cos - x2*sin and x2*cos + x1*sin,
  each op in that dtype, stored in place. Half split only (rotate_half's
  pairing), partial rotary from cos's width (_resolve_rotary_dim).
- Under the interpreter each op is numpy's on that dtype (interpreter.py
  binary_op: np.multiply, np.subtract; numpy evaluates a float16 op in fp32 and
  rounds to float16, as PyTorch's eager ops do). So fp32 is f32_angle_product
  (HF's fp32 cos/sin, fp32 rotation) and fp16 hf_eager (cos/sin rounded to
  fp16 by HF's cast, every op rounded to fp16).
- bf16 is not run: the interpreter holds bfloat16 as its uint16 bit patterns
  (triton/runtime/interpreter.py:173-174, _get_np_dtype) and binary_op
  (interpreter.py:588-604) applies numpy's arithmetic to those uint16 arrays,
  integer arithmetic on the bits: a one-line kernel storing 2 * x of bf16
  data returns garbage (test_liger_findings.py asserts it, so the row is
  rebuilt when Triton fixes it). The interpreter runs no bf16 kernel
  correctly; on a GPU Triton compiles bf16 for real.
"""
import hf_transformers

FRAMEWORK = "liger-kernel"
VENV = "main"
ENV = {"TRITON_INTERPRET": "1"}
_POLICY = {"f32": "f32_angle_product", "f16": "hf_eager"}
BF16_NOT_RUN = ("not run: Triton 3.9.0's interpreter holds bf16 as uint16 bit patterns "
                "(triton/runtime/interpreter.py:173-174) and binary_op (interpreter.py:588-604) does integer "
                "arithmetic on them: any bf16 kernel computes garbage (test_liger_findings.py)")

ROWS = [dict(id=f"liger_rope_{dt}", framework=FRAMEWORK, variant="Triton interpreter, CPU", dtypes=[dt],
             layouts=["half_split"], schemes=hf_transformers.SCHEMES, policy=_POLICY[dt], inverse=False,
             partial_rotary=True, negative_positions=True, env=ENV) for dt in ("f32", "f16")]
ROWS.append(dict(id="liger_rope_bf16", framework=FRAMEWORK, variant="Triton interpreter, CPU", dtypes=["bf16"],
                 layouts=["half_split"], schemes=hf_transformers.SCHEMES, policy="hf_eager", inverse=False,
                 partial_rotary=True, negative_positions=True, env=ENV, not_run=BF16_NOT_RUN))


def version():
    import importlib.metadata
    import triton
    return f"liger-kernel {importlib.metadata.version('liger-kernel')}, triton {triton.__version__} (interpreter)"


def make_kernel(row):
    import os

    import torch
    if os.environ.get("TRITON_INTERPRET") != "1":
        raise RuntimeError("liger_rope: TRITON_INTERPRET=1 must be set before triton is imported (the row's env)")
    from liger_kernel.transformers.rope import liger_rotary_pos_emb
    torch.set_num_threads(1)

    def liger_rope(q, k, positions, rope):
        if q.size == 0:  # no token or no head: nothing to rotate (a grid of 0 programs, tl.arange(0, 0))
            return q.copy(), k.copy()
        tq = hf_transformers.to_torch(q, rope.dtype)
        # liger's API rotates q and k together; q without k gets a one-head stand-in k, its result dropped
        tk = hf_transformers.to_torch(k if k.size else q[:, :1], rope.dtype)
        cos, sin = hf_transformers.cos_sin(rope, positions, tq)  # [1, tokens, rotary_dim]
        # [tokens, heads, dim] -> [1, heads, tokens, dim]; liger transposes back and rotates a contiguous copy
        qo, ko = liger_rotary_pos_emb(tq.transpose(0, 1)[None], tk.transpose(0, 1)[None], cos, sin)
        k_out = hf_transformers.to_numpy(ko[0].transpose(0, 1), k) if k.size else k.copy()
        return hf_transformers.to_numpy(qo[0].transpose(0, 1), q), k_out

    return liger_rope
