# SPDX-License-Identifier: MIT
"""transformers at a published bug's releases, as the model of that release builds
and calls its rotary embedding (the layer on sys.path is the release; torch is
the [main] venv's). A row's `scenario` is how the model is used when the bug
shows, from the bug's report (bugs.py cites it); the adapter is the same for
the buggy and the fixed release.

The rotary module is the one a LlamaAttention of the release builds
(`_init_rope` from config.rope_scaling, transformers <= 4.44) or, where the
attention has none (>= 4.45, 5.x), LlamaRotaryEmbedding(config), the model's.
Its forward(x, position_ids) gives cos/sin; the rotation is the release's
Llama apply_rotary_pos_emb (half split, full rotary) or, for YaRN with
partial rotary or interleaved pairs, GPT-NeoX's and GLM's (hf_transformers.py).

Scenarios:
- autocast_bf16 (transformers PR #29285): the model runs under
  torch.autocast(bf16), as mixed-precision training runs it; q/k are bf16.
  The claim is HF's: angles p * inv_freq in fp32, cos/sin cast to bf16, the
  rotation in bf16 (hf_eager).
- dynamic_after_longer (issue #25306, PR #46624): a fresh module first serves
  a request of L + 1 tokens (L = max_position_embeddings: the shortest request
  that scales the base), then the case's request of rope.seq_len tokens, the
  case's positions with its last token (position seq_len - 1, its output
  dropped) so that the module reads the case's length from max(position_ids) +
  1 as the model does. The claim (HF's dynamic NTK, docs/FREQUENCY_SCHEMES.md):
  every request gets the frequencies of its own length, default ones up to L.
  The row declares max_position 2048 (no suite L is below it), so each case's
  positions lie below L and below seq_len where seq_len > L. A longer first
  request would also fail the fixed releases on requests between L and it:
  their cache only grows above L (left alone, docs/FRAMEWORKS.md).
- yarn_model_card (issue #38224): the config a model card tells users to
  write to enable YaRN, the rope_scaling block added and
  max_position_embeddings left at the pretrained length (= the block's
  original_max_position_embeddings). The claim: YaRN with the block's factor.
"""
import copy

import numpy as np

import hf_transformers

FRAMEWORK = "transformers"
VENV = "main"


def version():
    import torch
    import transformers
    return f"transformers {transformers.__version__}, torch {torch.__version__.split('+')[0]}"


def _has_rope_type_configs():
    """transformers >= 4.43 reads rope_scaling["rope_type"]; before, exactly {"type", "factor"}."""
    import importlib.util
    return importlib.util.find_spec("transformers.modeling_rope_utils") is not None


def config(rope, **overrides):
    """A LlamaConfig holding the case's HF config, in the form this release reads."""
    from transformers import LlamaConfig
    hf = copy.deepcopy(dict(rope.hf_config or {}))
    hf.setdefault("head_dim", rope.head_dim)
    hf.setdefault("max_position_embeddings", 2048)
    hf.update(overrides)
    scaling = hf.get("rope_scaling")
    if scaling and not _has_rope_type_configs():
        hf["rope_scaling"] = {"type": scaling["rope_type"], "factor": scaling["factor"]}

    heads = 2
    return LlamaConfig.from_dict({"hidden_size": hf["head_dim"] * heads, "num_attention_heads": heads, **hf})


def rotary_module(cfg):
    """The rotary embedding the release's Llama model builds for cfg (module docstring)."""
    import torch
    from transformers.models.llama import modeling_llama
    with torch.no_grad():
        attention = modeling_llama.LlamaAttention(cfg, layer_idx=0)
    emb = getattr(attention, "rotary_emb", None)
    return emb if emb is not None else modeling_llama.LlamaRotaryEmbedding(config=cfg)


def rotate(rope, q, k, cos, sin):
    """The release's apply_rotary_pos_emb on q, k [tokens, heads, dim] with cos/sin [1, tokens, rotary_dim]."""
    import torch
    with torch.no_grad():
        qo, ko = hf_transformers.apply_function(rope)(q[None], k[None], cos, sin, unsqueeze_dim=2)
    return qo[0], ko[0]


def _positions(positions):
    import torch
    return torch.from_numpy(positions.astype(np.int64))[None, :]


def make_kernel(row):
    import torch
    torch.set_num_threads(1)
    scenario = row["scenario"]

    def autocast_bf16(q, k, positions, rope):
        tq, tk = hf_transformers.to_torch(q, rope.dtype), hf_transformers.to_torch(k, rope.dtype)
        emb = rotary_module(config(rope))
        with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
            cos, sin = emb(tq, _positions(positions))
            qo, ko = rotate(rope, tq, tk, cos, sin)
        return hf_transformers.to_numpy(qo, q), hf_transformers.to_numpy(ko, k)

    def dynamic_after_longer(q, k, positions, rope):
        tq, tk = hf_transformers.to_torch(q, rope.dtype), hf_transformers.to_torch(k, rope.dtype)
        cfg = config(rope)
        emb = rotary_module(cfg)
        longest = int(cfg.max_position_embeddings) + 1
        with torch.no_grad():
            emb(tq, torch.arange(longest)[None])  # the earlier request
            request = np.append(positions.astype(np.int64), max(int(rope.seq_len), 1) - 1)
            cos, sin = emb(tq, _positions(request))
        qo, ko = rotate(rope, tq, tk, cos[:, :-1], sin[:, :-1])
        return hf_transformers.to_numpy(qo, q), hf_transformers.to_numpy(ko, k)

    def yarn_model_card(q, k, positions, rope):
        tq, tk = hf_transformers.to_torch(q, rope.dtype), hf_transformers.to_torch(k, rope.dtype)
        original = rope.hf_config["rope_scaling"]["original_max_position_embeddings"]
        emb = rotary_module(config(rope, max_position_embeddings=original))
        with torch.no_grad():
            cos, sin = emb(tq, _positions(positions))
        qo, ko = rotate(rope, tq, tk, cos, sin)
        return hf_transformers.to_numpy(qo, q), hf_transformers.to_numpy(ko, k)

    return {"autocast_bf16": autocast_bf16, "dynamic_after_longer": dynamic_after_longer,
            "yarn_model_card": yarn_model_card}[scenario]
