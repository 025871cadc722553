# SPDX-License-Identifier: MIT
"""Megatron-core's (0.16.1, `layered` venv) multimodal M-RoPE as a ropecheck
kernel: MultimodalRotaryEmbedding (what GPTModel builds for
position_embedding_type 'mrope', models/gpt/gpt_model.py:192-203, called with
config.mrope_section at :386-391) and the unfused apply, on the CPU.

Line numbers are megatron-core 0.16.1's, under megatron/core/models/common/embeddings/.
- rotary_pos_embedding.py:258-305: inv_freq = 1 / base ** (arange(0, dim, 2)
  .float() / dim) in fp32 (RotaryEmbedding's); :325-328 position_ids [3,
  batch, tokens] to fp32, times 1 / factor for linear interpolation;
  :331-335 freqs = inv_freq @ positions (one fp32 product per element);
  :339 cat(freqs, freqs); :348-349 the channels split by mrope_section * 2,
  chunk i from axis i % 3: Qwen2-VL's sections, frequencies shared
  (ropecheck's SECTIONS assignment with AXIS_FREQ_SHARED).
- rope_utils.py:92-128 _apply_rotary_pos_emb_bshd (apply_rotary_pos_emb's
  unfused path, :293-300): cos/sin in fp32 cast to t's dtype, t * cos +
  rotate_half(t) * sin in t's dtype, channels past the embedding's width
  passed through. So f32 is f32_angle_product and bf16/fp16 hf_eager, as
  megatron_rope.py's rows.
- mrope_section = the case's pairs per axis, padded with empty sections to
  3 (the module splits 3 axes); more axes are refused (CaseOutsideFramework,
  hf_mrope.axes_of). A 1D call is a text token: every axis at its position.
- The interleaved layout (rotary_interleaved=True, :340-344) is its own row,
  megatron_mrope_interleaved, expected to fail: the branch views the
  transposed (non-contiguous) freqs as [3, bs, -1, 1] and the stacked
  embedding as [3, bs, freqs.shape[0], -1], freqs.shape[0] being the 3 axes
  where the tokens were meant; every call raises (finding M2; reported
  upstream as NVIDIA/Megatron-LM PR #5201). The half-split row's
  declaration is what works.
- kv_channels = the case's rotary_dim (rotary_percent 1): partial rotary is
  the apply's pass-through. get_emb's device move is RotaryEmbedding's;
  this class makes inv_freq on torch.cuda.current_device() (:297), stubbed
  to "cpu" as in megatron_rope.py.
"""
import hf_mrope
import hf_transformers

FRAMEWORK = "megatron-core"
VENV = "layered"

M2 = dict(finding="M2", title="Megatron-core's interleaved M-RoPE raises on every call",
          families=["default", "linear", "mrope_sections"], property="ConformsToReference",
          source="megatron/core/models/common/embeddings/rotary_pos_embedding.py:336-344 (megatron-core 0.16.1); "
                 "reported upstream as [NVIDIA/Megatron-LM#5201](https://github.com/NVIDIA/Megatron-LM/pull/5201) "
                 "(open)",
          test="python/frameworks/test_megatron_findings.py::test_megatron_mrope_interleaved_raises_on_every_call",
          explanation="MultimodalRotaryEmbedding(rotary_interleaved=True) forms freqs [3, bs, tokens, dim] as a "
                      "transpose, views it as [3, bs, -1, 1] (a view of a non-contiguous tensor: RuntimeError "
                      "for any call of two tokens or more) and views the stacked embedding as "
                      "[3, bs, freqs.shape[0], -1], the 3 axes where the tokens were meant (a one-token call "
                      "raises there). So a model configured with rotary_interleaved and mrope cannot run its "
                      "embedding at all: loud, not silent, and every case of the row fails on the framework's "
                      "RuntimeError. The half-split row beside it passes.")


def _row(id, layouts, **extra):
    return dict(id=id, framework=FRAMEWORK, variant="MultimodalRotaryEmbedding (Qwen2-VL M-RoPE), unfused apply",
                dtypes=["f32", "bf16", "f16"], layouts=layouts, schemes=["default", "linear"], policy="hf_eager",
                inverse=False, partial_rotary=True, negative_positions=True, multi_axis=["sections"],
                # one row over its dtypes and layout, its cases redrawn within them, on the standard suite: the
                # quick suite holds 2 M-RoPE sections cases (the standard 10, with 15 text-token ones)
                redraw=True, suite="standard", **extra)


ROWS = [_row("megatron_mrope", ["half_split"]),
        # the module's rotary_interleaved branch: each call raises (M2); the quick suite is enough to show it
        _row("megatron_mrope_interleaved", ["interleaved"], expect=M2) | dict(suite="quick")]


def version():
    import importlib.metadata
    import torch
    return f"megatron-core {importlib.metadata.version('megatron-core')}, torch {torch.__version__.split('+')[0]}"


def embedding(rope, interleaved=False):
    """Megatron's module for the case: linear interpolation is its seq_len_interpolation_factor."""
    from megatron.core.models.common.embeddings.rotary_pos_embedding import MultimodalRotaryEmbedding
    hf = rope.hf_config
    scaling = dict(hf.get("rope_scaling") or {})
    kind = scaling.get("rope_type", scaling.get("type", "default"))
    factor = float(scaling["factor"]) if kind == "linear" else None
    return MultimodalRotaryEmbedding(kv_channels=rope.rotary_dim, rotary_percent=1.0, rotary_interleaved=interleaved,
                                     seq_len_interpolation_factor=factor,
                                     rotary_base=float(hf.get("rope_theta", 10000.0)))


def make_kernel(row):
    import torch
    from megatron.core.models.common.embeddings import rope_utils
    torch.set_num_threads(1)
    torch.cuda.current_device = lambda: "cpu"  # the stub: inv_freq's device (see the docstring)

    pairs_interleaved = row["layouts"] == ["interleaved"]  # the module's rotary_interleaved (row M2)

    def megatron_mrope(q, k, positions, rope):
        dt = hf_transformers.torch_dtype(rope.dtype)
        sections, axes_interleaved, pos = hf_mrope.axes_of(rope, positions)  # pos [3, 1, tokens]
        assert not axes_interleaved, "the row declares sections only"
        with torch.no_grad():
            freqs = embedding(rope, pairs_interleaved)(pos, list(sections))  # [tokens, 1, 1, rotary_dim]
            out = []
            for x in (q, k):  # [tokens, heads, head_dim] as [seq, batch 1, heads, head_dim] (bshd)
                if x.shape[1] == 0:  # the q-only call's empty k
                    out.append(x.copy())
                    continue
                t = torch.from_numpy(x.copy()).to(dt)[:, None]
                r = rope_utils._apply_rotary_pos_emb_bshd(t, freqs, rotary_interleaved=pairs_interleaved)
                out.append(hf_transformers.to_numpy(r[:, 0], x))
        return out[0], out[1]

    return megatron_mrope
