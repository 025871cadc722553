# SPDX-License-Identifier: MIT
"""mlx-lm's RoPE at a published bug's releases, on MLX's CPU backend (the layer
holds mlx, mlx-cpu and the mlx-lm release; both releases of a bug run the same
mlx, so only mlx-lm's Python differs).

A model of mlx-lm calls its rope module on q and k as [batch, heads, tokens,
head_dim] with `offset`, the position of the first token (mx.fast.rope
rotates token j by offset + j). A case's positions are called run by run: each
run of consecutive positions is one call with offset its first position, as a
model's prefill or decode step is. Negative positions are not declared.

Scenarios (the module a model of the release builds for the case's HF config):
- initialize_rope: rope_utils.initialize_rope(rotary_dim, rope_theta,
  traditional, rope_scaling, max_position_embeddings), what mlx-lm's models
  call (qwen2.py, llama.py, ...). YaRN there is YarnRoPE: correction range
  always floored and ceiled, mscale from mscale / mscale_all_dim, no
  explicit attention_factor (declared as restrictions). Layout: traditional
  (interleaved) or not (half split); partial rotary by dims.
- internlm3: internlm3.Attention(ModelArgs from the config).rope, the model's
  own construction (dims = head_dim: no partial rotary).
- deepseek_v32_indexer (mlx-lm PR #1431): the rope of DeepSeek-V3.2's
  lightning indexer, deepseek_v32.Indexer(ModelArgs from the config).rope, the
  model's own construction (0.31.3 deepseek_v32.py:71-77, 0.32.0
  deepseek_v32.py:73-79: initialize_rope(qk_rope_head_dim, rope_theta,
  traditional, max_position_embeddings, rope_scaling)). qk_rope_head_dim is
  the case's rotary_dim (the indexer rotates the first qk_rope_head_dim
  channels of a head and passes the rest, as mx.fast.rope with dims <
  head_dim does); the indexer's projections are built tiny (they are not
  called). The claim (DeepSeek's, deepseek-ai/DeepSeek-V3.2-Exp commit
  8631a81, cited in the PR): the indexer's rope is not interleaved, half split.

MLX's arithmetic: mx.fast.rope on the CPU computes inv_freq = base^(-2i/d)
(or 1/freqs) and the angle offset+j times it in fp32, sin/cos and the
rotation in fp32 (f32_angle_product; bugs.py's rows measure it on the fixed
release).
"""
import numpy as np

FRAMEWORK = "mlx-lm"
VENV = "main"


def version():
    import importlib.metadata
    return f"mlx-lm {importlib.metadata.version('mlx-lm')}, mlx {importlib.metadata.version('mlx')} (CPU)"


def runs(positions):
    """(start index, end index) of each run of consecutive positions."""
    cut = np.flatnonzero(np.diff(positions) != 1) + 1
    bounds = np.concatenate([[0], cut, [positions.size]])
    return list(zip(bounds[:-1], bounds[1:]))


def module(row, rope):
    hf = dict(rope.hf_config or {})
    scaling = hf.get("rope_scaling")
    traditional = rope.layout == "interleaved"
    if row["scenario"] == "initialize_rope":
        from mlx_lm.models.rope_utils import initialize_rope
        return initialize_rope(rope.rotary_dim, float(hf.get("rope_theta", 10000.0)), traditional, scaling,
                               int(hf.get("max_position_embeddings", 2048)))
    if row["scenario"] == "deepseek_v32_indexer":
        from mlx_lm.models import deepseek_v32
        args = deepseek_v32.ModelArgs(hidden_size=8, index_head_dim=rope.head_dim, index_n_heads=1, q_lora_rank=8,
                                      qk_rope_head_dim=rope.rotary_dim,
                                      rope_theta=float(hf.get("rope_theta", 10000.0)), rope_scaling=scaling,
                                      max_position_embeddings=int(hf.get("max_position_embeddings", 2048)))
        return deepseek_v32.Indexer(args).rope
    from mlx_lm.models import internlm3
    heads = 2
    args = internlm3.ModelArgs(model_type="internlm3", hidden_size=rope.head_dim * heads, num_hidden_layers=1,
                               intermediate_size=8, num_attention_heads=heads, rms_norm_eps=1e-6, vocab_size=8,
                               rope_theta=float(hf.get("rope_theta", 10000.0)), rope_traditional=traditional,
                               rope_scaling=scaling,
                               max_position_embeddings=int(hf.get("max_position_embeddings", 32768)))
    return internlm3.Attention(args).rope


def make_kernel(row):
    import mlx.core as mx

    def mlx_lm_rope(q, k, positions, rope):
        rotary = module(row, rope)
        out = []
        for x in (q, k):
            y = x.copy()  # no head: nothing to rotate
            for a, b in (runs(positions) if x.size else []):
                part = mx.array(np.ascontiguousarray(x[a:b].transpose(1, 0, 2))[None])  # [1, heads, run, dim]
                r = rotary(part, offset=int(positions[a]))
                y[a:b] = np.array(r[0].astype(mx.float32)).transpose(1, 0, 2)
            out.append(y)
        return out[0], out[1]

    return mlx_lm_rope
