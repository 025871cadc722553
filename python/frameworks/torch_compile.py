# SPDX-License-Identifier: MIT
"""torch.compile (Inductor, CPU; torch 2.15.0 pinned in constraints.txt) of the
HF form: transformers' rotary-embedding forward and apply_rotary_pos_emb, the
same functions hf_transformers.py runs eagerly, compiled together as one graph.

What is compiled, and what is not (as in a compiled model):
- inv_freq and attention_scaling come from transformers' own init functions
  at load (hf_transformers.rotary_module: ROPE_INIT_FUNCTIONS, the case's
  seq_len for dynamic NTK and LongRoPE); a model computes them once, eagerly,
  and hands the compiled forward its buffer.
- compiled: LlamaRotaryEmbedding.forward (models/llama/modeling_llama.py:110-116:
  positions.float() * inv_freq, cos/sin * attention_scaling, .to(x.dtype)) and
  the apply function of hf_transformers.apply_function (Llama's, GPT-NeoX's for
  partial rotary, GLM's for interleaved). The forward runs on a stand-in
  holding the module's three attributes it reads (inv_freq, attention_scaling,
  rope_type), all tensors or constants passed in: an nn.Module's buffers are
  static-shaped to Dynamo (one compile per head_dim), plain tensor arguments
  are dynamic. attention_scaling is a 0-d fp32 tensor: the fp32 product a
  Python float gives too.
- torch.compile(dynamic=True, fullgraph=True): one compile per apply function
  and dtype, not per shape; fullgraph makes a graph break an error, and the
  recompile limit is raised with every recompile counted, so the row is never
  eager code under a compiled name (make_kernel checks the counters).

The arithmetic Inductor generates (TORCH_LOGS=output_code, one fused C++
kernel, torch 2.15.0): the fp32 angle and at::vec cos/sin (Sleef, 1 ulp), the
cos/sin * attention_scaling product in fp32, and for bf16/fp16 the
`.to(x.dtype)` of cos/sin and the dtype round trips between the fused ops
elided (torch._inductor.config.emulate_precision_casts is off): q is widened,
q*cos + rotate_half(q)*sin computed in fp32 and rounded once at the store.
So every dtype is f32_angle_product (fp32 cos/sin and rotation, the result
cast to the dtype), not eager's hf_eager: compiled and eager HF RoPE give
different bits in bf16/fp16, the compiled closer to the exact result.
"""
import hf_transformers

FRAMEWORK = "torch.compile"
VENV = "main"
SCHEMES = hf_transformers.SCHEMES

ROWS = [dict(id=f"torch_compile_{dt}", framework=FRAMEWORK, variant="Inductor CPU, HF form", dtypes=[dt],
             layouts=["half_split", "interleaved"], schemes=SCHEMES, policy="f32_sleef_u35", inverse=False,
             partial_rotary=True, negative_positions=True) for dt in ("f32", "bf16", "f16")]


def version():
    import torch
    import transformers
    return f"torch {torch.__version__.split('+')[0]} (Inductor), transformers {transformers.__version__}"


class _Rotary:
    """The attributes LlamaRotaryEmbedding.forward (and its dynamic_rope_update wrapper) reads."""

    def __init__(self, inv_freq, attention_scaling):
        self.inv_freq = inv_freq
        self.attention_scaling = attention_scaling
        self.rope_type = "default"  # the case's frequencies are already in inv_freq (hf_transformers.rotary_module)


def make_kernel(row):
    import torch
    import torch._dynamo
    from torch._dynamo.utils import counters
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding
    torch.set_num_threads(1)
    # every (apply function, dtype) compiles once; past the limit Dynamo would silently run eager: an error instead
    torch._dynamo.config.recompile_limit = 64
    torch._dynamo.config.fail_on_recompile_limit_hit = True

    def hf_form(apply, q, k, position_ids, inv_freq, attention_scaling):
        cos, sin = LlamaRotaryEmbedding.forward(_Rotary(inv_freq, attention_scaling), q, position_ids)
        return apply(q[None], k[None], cos, sin, unsqueeze_dim=2)

    fn = torch.compile(hf_form, dynamic=True, fullgraph=True)  # guards on `apply`: one graph per function, dtype

    def torch_compile(q, k, positions, rope):
        if q.size == 0:  # no token or no head: nothing to rotate (and an empty tensor's strides are a new graph)
            return q.copy(), k.copy()
        emb = hf_transformers.rotary_module(rope)
        apply = hf_transformers.apply_function(rope)
        tq = hf_transformers.to_torch(q, rope.dtype)
        # q without k: a one-head stand-in (heads are independent elementwise work), its result dropped
        tk = hf_transformers.to_torch(k if k.size else q[:, :1], rope.dtype)
        pos = torch.from_numpy(positions.astype("int64")).reshape(1, -1).clone()  # no view: no guard on a base
        scaling = torch.tensor(float(emb.attention_scaling), dtype=torch.float32)
        inv_freq = emb.inv_freq.detach().clone()
        # tokens, heads and pairs as unbacked sizes: no 0/1 specialization (decode's one token, MQA's one kv
        # head, q without k), so one graph serves every shape instead of a recompile for each such case
        for t, dims in ((tq, (0, 1)), (tk, (0, 1)), (pos, (1,)), (inv_freq, (0,))):
            for d in dims:
                torch._dynamo.decorators.mark_unbacked(t, d)
        with torch.no_grad():
            qo, ko = fn(apply, tq, tk, pos, inv_freq, scaling)
        if counters["stats"]["unique_graphs"] == 0:
            raise RuntimeError("torch.compile compiled no graph: the row would judge eager code")
        return hf_transformers.to_numpy(qo[0], q), (hf_transformers.to_numpy(ko[0], k) if k.size else k.copy())

    return torch_compile
