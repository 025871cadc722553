# SPDX-License-Identifier: MIT
"""transformers' (5.24.0) multimodal RoPE as a ropecheck kernel: the M-RoPE of
Qwen2-VL (sections) and Qwen3-VL (interleaved), eager, on ropecheck's
multi-axis cases, and Qwen2-VL's text tokens (every axis equal) on the 1D ones.

transformers 5.24.0 has no apply_multimodal_rotary_pos_emb (4.x's): the
sections moved into the rotary embedding, which takes position_ids
[3, batch, tokens] and returns cos/sin with each pair's axis already chosen;
the rotation is the model's copy of Llama's apply_rotary_pos_emb. Line
numbers are transformers 5.24.0's.
- sections: models/qwen2_vl/modeling_qwen2_vl.py:88-148 Qwen2VLRotaryEmbedding:
  freqs = position_ids.float() * inv_freq per axis (fp32), cos/sin *
  attention_scaling, recomposition_frequencies: the pairs split by
  mrope_section, chunk j from axis j % 3, cat(f, f); cast to q's dtype;
  apply_rotary_pos_emb (:156) in q's dtype.
- interleaved: models/qwen3_vl/modeling_qwen3_vl.py:358-420
  Qwen3VLTextRotaryEmbedding: axis 0 everywhere, then pairs 1, 4, ... of
  axis 1 and 2, 5, ... of axis 2 up to 3 * mrope_section[axis] (ropecheck's
  INTERLEAVED assignment over 3 axes).
- mrope_section = the case's pairs per axis. Both classes take 3 axes: a
  sections case with fewer gets empty sections (their rows are never read);
  more axes, or an interleaved case with other than 3, is outside what these
  models compute (refused, CaseOutsideFramework). Per-axis frequencies and a
  per-pair table are not declared: no transformers text model has them.
- inv_freq over head_dim (compute_default_rope_parameters ignores
  partial_rotary_factor): partial rotary is not declared. Every other scheme
  comes from ROPE_INIT_FUNCTIONS as in hf_transformers.py (dynamic NTK and
  LongRoPE at the case's seq_len).

Policy: as hf_transformers' rows, fp32 angles and cos/sin cast to the
activation dtype, each rotation op in it: hf_eager (in fp32 it is
f32_angle_product), one row over the three dtypes.
"""
import copy

import hf_transformers

FRAMEWORK = "transformers"
VENV = "main"

ROWS = [dict(id="transformers_mrope", framework=FRAMEWORK, variant="Qwen2-VL / Qwen3-VL M-RoPE, eager",
             dtypes=["f32", "bf16", "f16"], layouts=["half_split"], schemes=hf_transformers.SCHEMES, policy="hf_eager",
             inverse=False, partial_rotary=False, negative_positions=True, multi_axis=["sections", "interleaved"])]


class CaseOutsideFramework(Exception):
    """A case these models cannot take by construction (more than 3 axes)."""


def version():
    return hf_transformers.version()


def rotary_module(rope, sections, interleaved):
    """The model's rotary embedding for the case, frequencies at the case's seq_len."""
    from transformers.models.qwen2_vl.configuration_qwen2_vl import Qwen2VLTextConfig
    from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLRotaryEmbedding
    from transformers.models.qwen3_vl.configuration_qwen3_vl import Qwen3VLTextConfig
    from transformers.models.qwen3_vl.modeling_qwen3_vl import Qwen3VLTextRotaryEmbedding
    hf = copy.deepcopy(dict(rope.hf_config))
    hf.setdefault("head_dim", rope.head_dim)
    hf.setdefault("max_position_embeddings", 2048)
    scaling = dict(hf.pop("rope_scaling", None) or {"rope_type": "default"})
    scaling["mrope_section"] = list(sections)
    cfg_cls, emb_cls = ((Qwen3VLTextConfig, Qwen3VLTextRotaryEmbedding) if interleaved
                        else (Qwen2VLTextConfig, Qwen2VLRotaryEmbedding))
    cfg = cfg_cls.from_dict({"hidden_size": hf["head_dim"] * 2, "num_attention_heads": 2, **hf,
                             "rope_scaling": scaling})
    return hf_transformers.at_case_seq_len(emb_cls(cfg), cfg, rope)


def axes_of(rope, positions):
    """(mrope_section, interleaved, position_ids [3, 1, tokens]) of the call."""
    import numpy as np
    import torch
    pairs = rope.rotary_dim // 2
    if not rope.num_axes:  # a text token: every axis at its position, one section holds every pair
        pos = np.broadcast_to(positions.astype(np.int64), (3, positions.size))
        return [pairs, 0, 0], False, torch.from_numpy(pos.copy())[:, None, :]
    n = rope.num_axes
    interleaved = rope.axis_assignment == "interleaved"
    if rope.axis_assignment not in ("sections", "interleaved") or rope.axis_frequencies != "shared":
        raise CaseOutsideFramework(f"{rope.axis_assignment} assignment, {rope.axis_frequencies} frequencies")
    if n > 3 or (interleaved and n != 3):
        raise CaseOutsideFramework(f"{n} axes with the {rope.axis_assignment} assignment (the models take 3)")
    sections = list(rope.axis_sections) + [0] * (3 - n)
    rows = np.zeros((3, positions.shape[1]), dtype=np.int64)
    rows[:n] = positions
    return sections, interleaved, torch.from_numpy(rows)[:, None, :]


def make_kernel(row):
    import torch
    from transformers.models.qwen2_vl.modeling_qwen2_vl import apply_rotary_pos_emb
    torch.set_num_threads(1)

    def transformers_mrope(q, k, positions, rope):
        tq, tk = hf_transformers.to_torch(q, rope.dtype), hf_transformers.to_torch(k, rope.dtype)
        sections, interleaved, pos = axes_of(rope, positions)
        with torch.no_grad():
            cos, sin = rotary_module(rope, sections, interleaved)(tq, pos)
            qo, ko = apply_rotary_pos_emb(tq[None], tk[None], cos, sin, unsqueeze_dim=2)
        return hf_transformers.to_numpy(qo[0], q), hf_transformers.to_numpy(ko[0], k)

    return transformers_mrope
