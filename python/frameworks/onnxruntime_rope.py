# SPDX-License-Identifier: MIT
"""ONNX Runtime (1.32.0, CPU execution provider: its own MLAS kernels) as a
ropecheck kernel: a one-node model of
- `onnx`: the ONNX RotaryEmbedding operator, opset 23, inputs (X, cos_cache,
  sin_cache[, position_ids]);
- `ms`: the com.microsoft RotaryEmbedding contrib op (since 1), inputs
  (input, position_ids, cos_cache, sin_cache).
X is [batch 1, tokens, heads * head_dim] (3D, with the num_heads attribute);
`interleaved` picks the pairing, `rotary_embedding_dim` partial rotary.

Both ops take cos/sin as inputs: in an exported model the graph computes them
(an HF export computes them as transformers does, in fp32, cast to the model's
dtype). So the cache here is transformers' own cos/sin (hf_transformers.cos_sin:
the real rotary-embedding forward, every scheme), cast to the op's dtype, one
row per token (onnx: a [1, tokens, d/2] cache without position_ids; ms:
position_ids 0..tokens-1 into a [tokens, d/2] cache), so any int64 position,
negative included, reaches the op. What ONNX Runtime contributes is the
pairing, partial rotary and the rotation arithmetic.

Policy: fp32 is f32_angle_product (HF's fp32 cache, fp32 rotation). fp16:
cos/sin rounded to fp16 by the cast, and ORT's CPU kernel widens to fp32,
rotates and rounds once (measured when this adapter was written, 2026-11-25:
at most 2 of 32768 elements not correctly rounded against the same fp16
cache; the rows' verdicts in docs/FRAMEWORKS.md are the standing evidence), so
f32_math_storage_cos_sin (cos/sin in the storage dtype, rotation in fp32).
bf16 is not run: the CPU provider has no bf16 kernel for either op
("NOT_IMPLEMENTED: Could not find an implementation for RotaryEmbedding(1)",
and for the opset-23 function body's Mul(14)).
"""
import functools

import hf_transformers

FRAMEWORK = "onnxruntime"
VENV = "main"
_POLICY = {"f32": "f32_angle_product", "f16": "f32_math_storage_cos_sin"}

ROWS = [dict(id=f"onnxruntime_{op}_{dt}", framework=FRAMEWORK,
             variant={"onnx": "RotaryEmbedding opset 23", "ms": "com.microsoft RotaryEmbedding"}[op],
             dtypes=[dt], layouts=["half_split", "interleaved"], schemes=hf_transformers.SCHEMES,
             policy=_POLICY[dt], inverse=False, partial_rotary=True, negative_positions=True, op=op)
        for op in ("onnx", "ms") for dt in ("f32", "f16")]


def version():
    import onnx
    import onnxruntime
    return f"onnxruntime {onnxruntime.__version__}, onnx {onnx.__version__}"


@functools.lru_cache(maxsize=None)
def session(op, f16, interleaved, rotary_dim, num_heads):
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper
    t = TensorProto.FLOAT16 if f16 else TensorProto.FLOAT
    x = helper.make_tensor_value_info("X", t, ["B", "S", "HD"])
    y = helper.make_tensor_value_info("Y", t, ["B", "S", "HD"])
    attrs = {"interleaved": int(interleaved), "num_heads": int(num_heads)}
    if rotary_dim:
        attrs["rotary_embedding_dim"] = int(rotary_dim)
    if op == "onnx":
        cos = helper.make_tensor_value_info("cos", t, ["B", "S", "R"])
        sin = helper.make_tensor_value_info("sin", t, ["B", "S", "R"])
        node = helper.make_node("RotaryEmbedding", ["X", "cos", "sin"], ["Y"], **attrs)
        inputs, opsets = [x, cos, sin], [helper.make_opsetid("", 23)]
    else:
        cos = helper.make_tensor_value_info("cos", t, ["P", "R"])
        sin = helper.make_tensor_value_info("sin", t, ["P", "R"])
        pos = helper.make_tensor_value_info("pos", TensorProto.INT64, ["B", "S"])
        node = helper.make_node("RotaryEmbedding", ["X", "pos", "cos", "sin"], ["Y"], domain="com.microsoft", **attrs)
        inputs = [x, pos, cos, sin]
        opsets = [helper.make_opsetid("", 23), helper.make_opsetid("com.microsoft", 1)]
    model = helper.make_model(helper.make_graph([node], "rope", inputs, [y]), opset_imports=opsets, ir_version=10)
    if op == "onnx":
        onnx.checker.check_model(model, full_check=True)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])


def make_kernel(row):
    import numpy as np
    import torch
    torch.set_num_threads(1)
    op = row["op"]

    def onnxruntime_rope(q, k, positions, rope):
        np_dtype = {"f32": np.float32, "f16": np.float16}[rope.dtype]
        d = rope.rotary_dim
        like = torch.zeros(1, dtype=hf_transformers.torch_dtype(rope.dtype))
        cos, sin = hf_transformers.cos_sin(rope, positions, like)     # [1, T, d] in the op's dtype, cat(f, f)
        c = cos[0, :, : d // 2].numpy().astype(np_dtype)               # the op reads d/2 values per row
        s = sin[0, :, : d // 2].numpy().astype(np_dtype)

        def run(x):
            t, h, hd = x.shape
            if x.size == 0:  # no heads or no tokens: nothing to rotate, and ORT refuses num_heads 0
                return x.copy()
            sess = session(op, np_dtype == np.float16, rope.layout == "interleaved", d if d != hd else 0, h)
            feeds = {"X": x.reshape(1, t, h * hd), "cos": c, "sin": s}
            if op == "onnx":
                feeds["cos"], feeds["sin"] = c[None], s[None]
            else:
                feeds["pos"] = np.arange(t, dtype=np.int64)[None]
            (y,) = sess.run(None, feeds)
            return np.array(y).reshape(t, h, hd)

        return run(q), run(k)

    return onnxruntime_rope
