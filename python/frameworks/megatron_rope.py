# SPDX-License-Identifier: MIT
"""Megatron-core (0.16.1, installed --no-deps into the `layered` venv on the
vllm venv's torch: constraints.txt) as a ropecheck kernel: RotaryEmbedding /
YarnRotaryEmbedding's embedding and the unfused apply, on the CPU.

Line numbers are megatron-core 0.16.1's, under megatron/core/models/common/embeddings/.
- rotary_pos_embedding.py:58-90 RotaryEmbedding: inv_freq = 1 / base **
  (arange(0, dim, 2).float() / dim) in fp32; :127-140 the angles outer(seq,
  inv_freq) in fp32, seq = arange(n) + offset (times 1 / factor for linear
  interpolation, seq_len_interpolation_factor); :150-177 get_emb.
- rope_utils.py:92-128 _apply_rotary_pos_emb_bshd, what apply_rotary_pos_emb
  calls without TE's fused kernel (rope_utils.py:301-308): cos/sin in fp32
  times mscale, cast to t's dtype, t * cos + rotate_half(t) * sin in t's
  dtype. So fp32 is f32_angle_product and bf16/fp16 hf_eager.
- Megatron's embedding is of consecutive positions: the adapter asks
  get_emb(1, offset=p) for each distinct position of a call (arange(1) + p is
  fl32(p), the value row p of arange(n) holds) and gathers the rows.
- get_emb moves inv_freq to torch.cuda.current_device() (:160-162); there is
  no GPU here, so the adapter stubs torch.cuda.current_device to answer
  "cpu" (the only stub). parallel_state is never initialised: the context-
  parallel group is None.
- yarn_rotary_pos_embedding.py:21-216 YarnRotaryEmbedding: truncated or not
  (correction_range_round_to_int), HF's mscale / mscale_all_dim
  (:259-271; without them mscale 1 over mscale_all_dim 0: HF's 0.1 ln s + 1),
  no explicit attention factor, half split only (:121-123 asserts).
- Llama 3.1 (rope_scaling=True, :84-85, :92-125 _apply_scaling): only the
  factor is a parameter; low_freq_factor 1, high_freq_factor 4 and
  original_max_position_embeddings 8192 are fixed: finding M1.
"""
import numpy as np

import hf_transformers

FRAMEWORK = "megatron-core"
VENV = "layered"
_POLICY = {"f32": "f32_angle_product", "bf16": "hf_eager", "f16": "hf_eager"}

M1 = dict(finding="M1", title="Megatron-core's Llama 3.1 scaling fixes low/high_freq_factor and L",
          families=["llama3"], property="ConformsToReference",
          source="megatron/core/models/common/embeddings/rotary_pos_embedding.py:84-85, 92-125 "
                 "(megatron-core 0.16.1)",
          test="python/frameworks/test_megatron_findings.py::test_megatron_llama3_fixes_its_band",
          explanation="RotaryEmbedding takes rope_scaling (a bool) and rope_scaling_factor; _apply_scaling's "
                      "low_freq_factor (1), high_freq_factor (4) and original_max_position_embeddings (8192) "
                      "keep their defaults, so an HF llama3 config with other values (Llama 3.1's own are "
                      "1/4/8192) gets Llama 3.1's bands: every pair whose band moves gets an O(1) different "
                      "frequency.")


def _row(id, dtypes, schemes, layouts, variant="RotaryEmbedding, unfused apply", **extra):
    return dict(id=id, framework=FRAMEWORK, variant=variant, dtypes=dtypes,
                layouts=layouts, schemes=schemes,
                policy=_POLICY[dtypes[0]] if len(dtypes) == 1 else "hf_eager", inverse=False, partial_rotary=True,
                negative_positions=True, **extra)


ALL_DTYPES = ["f32", "bf16", "f16"]
ROWS = [_row(f"megatron_rope_{dt}", [dt], ["default", "linear"], ["half_split", "interleaved"])
        for dt in ALL_DTYPES]
ROWS += [_row("megatron_yarn", ALL_DTYPES, ["yarn"], ["half_split"], variant="YarnRotaryEmbedding, unfused apply",
              restrictions=["no_explicit_attention_factor"], suite="standard"),
         _row("megatron_llama3_f32", ["f32"], ["llama3"], ["half_split", "interleaved"], expect=M1)]


def version():
    import importlib.metadata
    import torch
    return f"megatron-core {importlib.metadata.version('megatron-core')}, torch {torch.__version__.split('+')[0]}"


def embedding(rope):
    """Megatron's module for the case's scheme."""
    from megatron.core.models.common.embeddings.rotary_pos_embedding import RotaryEmbedding
    from megatron.core.models.common.embeddings.yarn_rotary_pos_embedding import YarnRotaryEmbedding
    hf = rope.hf_config
    scaling = dict(hf.get("rope_scaling") or {})
    kind = scaling.get("rope_type", scaling.get("type", "default"))
    base = float(hf.get("rope_theta", 10000.0))
    common = dict(kv_channels=rope.rotary_dim, rotary_percent=1.0, rotary_base=base, use_cpu_initialization=True,
                  rotary_interleaved=rope.layout == "interleaved")
    if kind == "yarn":
        extra = {k: float(scaling[k]) for k in ("mscale", "mscale_all_dim") if scaling.get(k) is not None}
        return YarnRotaryEmbedding(scaling_factor=float(scaling["factor"]),
                                   original_max_position_embeddings=int(scaling["original_max_position_embeddings"]),
                                   beta_fast=float(scaling.get("beta_fast", 32)),
                                   beta_slow=float(scaling.get("beta_slow", 1)),
                                   correction_range_round_to_int=bool(scaling.get("truncate", True)), **extra,
                                   **common)
    if kind == "linear":
        return RotaryEmbedding(seq_len_interpolation_factor=float(scaling["factor"]), **common)
    if kind == "llama3":
        return RotaryEmbedding(rope_scaling=True, rope_scaling_factor=float(scaling["factor"]), **common)
    return RotaryEmbedding(**common)


def make_kernel(row):
    import torch
    from megatron.core.models.common.embeddings import rope_utils
    torch.set_num_threads(1)
    torch.cuda.current_device = lambda: "cpu"  # the stub: get_emb's device move (see the docstring)

    def megatron_rope(q, k, positions, rope):
        dt = hf_transformers.torch_dtype(rope.dtype)
        emb_module = embedding(rope)
        distinct, inverse = np.unique(positions.astype(np.int64), return_inverse=True)
        rows, mscale = [], 1.0
        with torch.no_grad():
            for p in distinct:
                e = emb_module.get_emb(1, offset=int(p))
                if isinstance(e, tuple):  # YaRN: (emb, mscale)
                    e, mscale = e
                rows.append(e)
            freqs = torch.cat(rows, dim=0)[torch.from_numpy(inverse.reshape(-1))]  # [tokens, 1, 1, rotary_dim]
            out = []
            for x in (q, k):  # [tokens, heads, head_dim] as [seq, batch 1, heads, head_dim] (bshd)
                if x.shape[1] == 0:  # the q-only call's empty k: Megatron rotates q and k apart, never an empty one
                    out.append(x.copy())
                    continue
                t = torch.from_numpy(x.copy()).to(dt)[:, None]
                r = rope_utils._apply_rotary_pos_emb_bshd(t, freqs, rotary_interleaved=rope.layout == "interleaved",
                                                           mscale=mscale)
                out.append(hf_transformers.to_numpy(r[:, 0], x))
        return out[0], out[1]

    return megatron_rope
