# SPDX-License-Identifier: MIT
"""transformers (5.24.0, pinned in constraints.txt) as a ropecheck kernel: the
real rope-parameter functions and the real apply_rotary_pos_emb, eager.

Line numbers are transformers 5.24.0's.
- config: LlamaConfig.from_dict(rope.hf_config + a head shape); transformers 5
  moves the v4 `rope_theta` / `rope_scaling` / `partial_rotary_factor` keys
  into config.rope_parameters. (GPTNeoXConfig would silently ignore rope_theta
  and partial_rotary_factor: it reads rotary_emb_base / rotary_pct.)
- frequencies: `default` from the model class's compute_default_rope_parameters
  (5.x has no "default" in ROPE_INIT_FUNCTIONS); every other scheme from
  modeling_rope_utils.ROPE_INIT_FUNCTIONS[rope_type] (linear, dynamic, yarn,
  longrope, llama3). transformers has no static "ntk" rope_type and no
  explicit frequency list, so those schemes are not declared.
  Llama's default ignores partial_rotary_factor, GPT-NeoX's honours it
  (models/gpt_neox/modeling_gpt_neox.py:81-84), so a partial rotary case takes
  GPTNeoXRotaryEmbedding, a full one LlamaRotaryEmbedding.
- cos/sin: the rotary embedding's forward (models/llama/modeling_llama.py:110-116):
  fp32 angle position.float() * inv_freq, cos/sin * attention_scaling in fp32,
  cast to the activation dtype.
- rotation: half split, full rotary: models/llama/modeling_llama.py:127
  apply_rotary_pos_emb (no partial rotary); half split, partial:
  models/gpt_neox/modeling_gpt_neox.py:107 (rotary_dim = cos.shape[-1]);
  interleaved: models/glm/modeling_glm.py:158 (cos[..., :d/2] repeated
  pairwise, every-two rotate_half). Each multiply and add in the activation dtype.

Policy, from that arithmetic: fp32 is f32_angle_product (fp32 formulas,
fp32 angle, fp32 cos/sin and rotation); bf16/fp16 is hf_eager (cos/sin
rounded to the activation dtype, every rotation op rounded to it).

Dynamic NTK and LongRoPE: HF's @dynamic_rope_update re-derives the
frequencies from max(position_ids) + 1 at every forward. ropecheck's case
states the sequence length its frequencies belong to (rope.seq_len; the
relative-position property moves positions and needs the same frequencies), so
the init function is called with seq_len=rope.seq_len and the module's
rope_type set to "default" so the decorator keeps them.
"""
import copy

FRAMEWORK = "transformers"
VENV = "main"
SCHEMES = ["default", "linear", "dynamic_ntk", "yarn", "llama3", "longrope"]
_POLICY = {"f32": "f32_angle_product", "bf16": "hf_eager", "f16": "hf_eager"}

ROWS = [dict(id=f"transformers_eager_{dt}", framework=FRAMEWORK, variant="eager", dtypes=[dt],
             layouts=["half_split", "interleaved"], schemes=SCHEMES, policy=_POLICY[dt], inverse=False,
             partial_rotary=True, negative_positions=True) for dt in ("f32", "bf16", "f16")]


def version():
    import torch
    import transformers
    return f"transformers {transformers.__version__}, torch {torch.__version__.split('+')[0]}"


def torch_dtype(name):
    import torch
    return {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16}[name]


def hf_config_object(rope):
    from transformers import LlamaConfig
    hf = copy.deepcopy(dict(rope.hf_config))  # transformers edits the rope_scaling dict in place
    hf.setdefault("head_dim", rope.head_dim)
    hf.setdefault("max_position_embeddings", 2048)
    heads = 2
    return LlamaConfig.from_dict({"hidden_size": hf["head_dim"] * heads, "num_attention_heads": heads, **hf})


def rotary_module(rope):
    """HF's rotary embedding module for the case, frequencies at the case's seq_len."""
    from transformers.models.gpt_neox.modeling_gpt_neox import GPTNeoXRotaryEmbedding
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding
    cfg = hf_config_object(rope)
    cls = LlamaRotaryEmbedding if rope.rotary_dim == rope.head_dim else GPTNeoXRotaryEmbedding
    return at_case_seq_len(cls(cfg), cfg, rope)


def at_case_seq_len(emb, cfg, rope):
    """emb with dynamic NTK's and LongRoPE's frequencies at the case's seq_len (module docstring), checked to
    rotate the case's rotary_dim."""
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
    rope_type = cfg.rope_parameters["rope_type"]
    if rope_type in ("dynamic", "longrope"):
        inv_freq, emb.attention_scaling = ROPE_INIT_FUNCTIONS[rope_type](cfg, None, seq_len=int(rope.seq_len))
        emb.inv_freq = inv_freq
        emb.rope_type = "default"
    if emb.inv_freq.numel() * 2 != rope.rotary_dim:
        raise ValueError(f"transformers rotates {emb.inv_freq.numel() * 2} channels, the case {rope.rotary_dim}")
    return emb


def cos_sin(rope, positions, like):
    """HF's cos/sin, [1, tokens, rotary_dim] in like.dtype (the real forward)."""
    import torch
    pos = torch.from_numpy(positions.astype("int64"))[None, :]
    with torch.no_grad():
        return rotary_module(rope)(like, pos)


def apply_function(rope):
    # imported only where used: an older release (published_bugs/) may lack GLM (before 4.46)
    if rope.layout == "interleaved":
        from transformers.models.glm.modeling_glm import apply_rotary_pos_emb as glm_apply
        return glm_apply
    if rope.rotary_dim != rope.head_dim:
        from transformers.models.gpt_neox.modeling_gpt_neox import apply_rotary_pos_emb as neox_apply
        return neox_apply
    from transformers.models.llama.modeling_llama import apply_rotary_pos_emb as llama_apply
    return llama_apply


def to_torch(x, dtype_name):
    import torch
    return torch.from_numpy(x.copy()).to(torch_dtype(dtype_name))


def to_numpy(t, like):
    """A plain host copy; bf16 travels as float32 holding bf16 values (exact). No other cast: a result in
    another dtype than the input's is the framework's, left for ropecheck's contract check."""
    import torch
    if t.dtype == torch.bfloat16:
        t = t.to(torch.float32)
    return t.detach().cpu().numpy().copy()


def make_kernel(row):
    import torch
    torch.set_num_threads(1)

    def transformers_eager(q, k, positions, rope):
        tq, tk = to_torch(q, rope.dtype), to_torch(k, rope.dtype)
        cos, sin = cos_sin(rope, positions, tq)
        with torch.no_grad():  # q as [batch 1, tokens, heads, dim]: cos/sin unsqueezed at dim 2
            qo, ko = apply_function(rope)(tq[None], tk[None], cos, sin, unsqueeze_dim=2)
        return to_numpy(qo[0], q), to_numpy(ko[0], k)

    return transformers_eager
