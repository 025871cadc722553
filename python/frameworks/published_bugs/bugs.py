# SPDX-License-Identifier: MIT
"""The corpus: RoPE bugs published in a framework's tracker, each at the release
that shipped it and the one that fixed it (both on PyPI; constraints.txt's
[bugs-PACKAGE-RELEASE] sections pin them as layers on the [main] venv).

Each bug declares, once for both releases, what the framework claims to compute
(the scheme and config its documentation and the report describe) and the
arithmetic the fixed release uses (a named policy, docs/ERROR_MODEL.md), and
the way the model is used when the bug shows (the adapter's scenario, from the
report). Nothing here comes from the buggy code: the verdict on the buggy
release is ropecheck's.

Fields: `links` (the report, then the fix where it is another thread),
`symptom` (what the report says goes wrong: the first wrong element must show
it), `own_tests` (whether the project's own tests at the buggy release caught
it, from the report), `property` (the one expected to fail), `declaration`
(ropecheck.check's arguments), `verified` (how the fixed release was told apart
from the buggy one, read in both releases' code), `fixed_cannot_pass` (where
ropecheck cannot pass the fixed release either: why; such a bug is not counted
as caught).
"""

_HALF = ["half_split"]
# The slowest rows (the dynamic NTK pairs serve a 2049-token request before every call; liger-kernel runs
# under Triton's interpreter) are judged on the bug's own property alone: with every property the corpus
# outgrew ctest's 20 minutes on the 2-core CI machine (2026-11-28). Each still fails its buggy release there.
_ITS_PROPERTY = ["ConformsToReference"]
_BOTH = ["half_split", "interleaved"]

BUGS = [
    dict(id="hf_autocast_bf16_angles", package="transformers", buggy="4.38.1", fixed="4.38.2",
         adapter="published_bugs.hf_releases", scenario="autocast_bf16",
         title="RoPE angles formed in bf16 under torch.autocast (Llama, Gemma)",
         links=["https://github.com/huggingface/transformers/pull/29285"],
         symptom="under bf16 autocast the angle p * inv_freq is a bf16 matmul: positions lose precision, badly "
                 "at long context",
         own_tests="no: found by a user (Unsloth) comparing training-loss curves, not by transformers' tests",
         verified="4.38.1 LlamaRotaryEmbedding.forward: `inv_freq_expanded @ position_ids_expanded` under the "
                  "caller's autocast; 4.38.2 wraps it in torch.autocast(enabled=False)",
         property="ConformsToReference",
         declaration=dict(dtypes=["bf16"], layouts=_HALF, schemes=["default"], policy="hf_eager",
                          partial_rotary=False, negative_positions=True)),
    dict(id="hf_dynamic_ntk_stale_after_long", package="transformers", buggy="4.41.2", fixed="4.43.4",
         adapter="published_bugs.hf_releases", scenario="dynamic_after_longer",
         title="Dynamic NTK keeps a longer request's frequencies for later, shorter requests",
         links=["https://github.com/huggingface/transformers/issues/25306"],
         symptom="after a request longer than max_position_embeddings, a short request is rotated with the long "
                 "request's scaled base instead of the default one",
         own_tests="no: reported by a user (the same prompt answered differently before and after a long one)",
         verified="4.41.2 LlamaDynamicNTKScalingRotaryEmbedding.forward replaces inv_freq only when seq_len > "
                  "max_position_embeddings, never back; 4.43 _dynamic_frequency_update resets it to "
                  "original_inv_freq below the original length. 4.42.x has the bug too (its numpy<2 pin keeps it "
                  "off the [main] venv); 4.43.0 cannot build a dynamic Llama at all (its LlamaRotaryEmbedding reads "
                  "rope_scaling['type'], which its validation refuses), so the fixed row is 4.43.4",
         fixed_leaves="_dynamic_frequency_update resets inv_freq only when seq_len < original_max_seq_len "
                      "(modeling_llama.py:137 in 4.43.4, modeling_rope_utils.py:112 in 5.13.0, still so in "
                      "5.24.0): a request of exactly max_position_embeddings tokens after a longer one keeps the "
                      "longer one's scaled frequencies, where HF's own dynamic NTK formula at that length gives "
                      "the default ones (test_hf_findings.py::test_dynamic_ntk_keeps_stale_frequencies_at_length_L)",
         property="ConformsToReference",
         declaration=dict(dtypes=["f32"], layouts=_HALF, schemes=["dynamic_ntk"], policy="f32_angle_product",
                          partial_rotary=False, negative_positions=False, max_position=2048,
                          suite="standard", properties=_ITS_PROPERTY)),
    dict(id="hf_dynamic_ntk_no_reset_layer_type_none", package="transformers", buggy="5.12.1", fixed="5.13.0",
         adapter="published_bugs.hf_releases", scenario="dynamic_after_longer",
         title="Dynamic RoPE never resets inv_freq when layer_type is None (the cached length written to "
               "`None_max_seq_len_cached`)",
         links=["https://github.com/huggingface/transformers/pull/46624"],
         symptom="after a long sequence, a short one keeps the dynamically scaled inv_freq",
         own_tests="no: the PR adds the regression test (a long then a short sequence) that was missing",
         verified="5.12.1 dynamic_frequency_update writes setattr(self, f\"{layer_type}_max_seq_len_cached\") "
                  "and reads self.max_seq_len_cached; 5.13.0 writes f\"{prefix}max_seq_len_cached\"",
         fixed_leaves="_dynamic_frequency_update resets inv_freq only when seq_len < original_max_seq_len "
                      "(modeling_llama.py:137 in 4.43.4, modeling_rope_utils.py:112 in 5.13.0, still so in "
                      "5.24.0): a request of exactly max_position_embeddings tokens after a longer one keeps the "
                      "longer one's scaled frequencies, where HF's own dynamic NTK formula at that length gives "
                      "the default ones (test_hf_findings.py::test_dynamic_ntk_keeps_stale_frequencies_at_length_L)",
         property="ConformsToReference",
         declaration=dict(dtypes=["f32"], layouts=_HALF, schemes=["dynamic_ntk"], policy="f32_angle_product",
                          partial_rotary=False, negative_positions=False, max_position=2048,
                          suite="standard", properties=_ITS_PROPERTY)),
    dict(id="hf_yarn_factor_overridden", package="transformers", buggy="4.55.4", fixed="4.56.0",
         adapter="published_bugs.hf_releases", scenario="yarn_model_card",
         title="YaRN ignores rope_scaling's factor when original_max_position_embeddings is set",
         links=["https://github.com/huggingface/transformers/issues/38224",
                "https://github.com/huggingface/transformers/pull/40320"],
         symptom="factor is replaced by max_position_embeddings / original_max_position_embeddings: a config "
                 "that adds a YaRN block to a model (Qwen3's model card) gets factor 1, unscaled frequencies",
         own_tests="no: reported by the Qwen team against their own configs",
         verified="4.55.4 _compute_yarn_parameters: `factor = config.max_position_embeddings / "
                  "original_max_position_embeddings` when the block has original_max_position_embeddings; "
                  "4.56.0 keeps rope_scaling['factor']",
         property="ConformsToReference",
         declaration=dict(dtypes=["f32"], layouts=_BOTH, schemes=["yarn"], policy="f32_angle_product",
                          partial_rotary=True, negative_positions=True)),
    dict(id="liger_rope_batch_cos_sin", package="liger-kernel", buggy="0.5.2", fixed="0.5.3",
         adapter="published_bugs.liger_batch", scenario="batch_of_two",
         title="RoPE kernel reads batch 0's cos/sin for every sequence of a batch",
         links=["https://github.com/linkedin/Liger-Kernel/pull/477"],
         symptom="with position_ids computed per sequence (cos/sin [bsz, seq, dim]) every sequence is rotated "
                 "by the first sequence's positions",
         own_tests="no: its test_rope.py built position_ids of batch 1 only; the PR adds the batch case",
         verified="0.5.2 _triton_rope: cos row `pid % sl`; 0.5.3 adds batch_idx * sl rows when cos has "
                  "a batch dimension (cos_bs)",
         property="ConformsToReference",
         declaration=dict(dtypes=["f32"], layouts=_HALF, schemes=["default", "llama3"], policy="f32_angle_product",
                          partial_rotary=False, negative_positions=True, cases=12, properties=_ITS_PROPERTY)),  # the interpreter: ~3 s a case
    dict(id="liger_rope_partial_rotary", package="liger-kernel", buggy="0.8.4", fixed="0.8.5",
         adapter="liger_rope", scenario="liger_rotary_pos_emb",
         title="RoPE kernel assumes rotary_dim == head_dim (partial RoPE: GPT-NeoX, Phi-2, GLM, Qwen3-Next)",
         links=["https://github.com/linkedin/Liger-Kernel/pull/1451"],
         symptom="with cos/sin of the rotary width (rotary_dim < head_dim) the kernel pairs channel i with "
                 "i + head_dim/2 and reads cos/sin past their width",
         own_tests="no: test_rope.py covered full rotary only; the PR adds partial RoPE",
         verified="0.8.4 _triton_rope: offsets and masks over hd // 2; 0.8.5 over the rotary width rd "
                  "(_resolve_rotary_dim from cos's width), channels rd..hd left untouched",
         property="ConformsToReference",
         declaration=dict(dtypes=["f32"], layouts=_HALF, schemes=["default"], policy="f32_angle_product",
                          partial_rotary=True, negative_positions=True, cases=12, properties=_ITS_PROPERTY)),
    dict(id="liger_qwen3vl_vision_layout", package="liger-kernel", buggy="0.6.4", fixed="0.6.5",
         adapter="published_bugs.liger_vision", scenario="qwen3vl_vision",
         title="Qwen3-VL vision RoPE: tokens and heads swapped ([tokens, heads, dim] fed as [heads, tokens, dim])",
         links=["https://github.com/linkedin/Liger-Kernel/issues/964",
                "https://github.com/linkedin/Liger-Kernel/pull/967"],
         symptom="apply_liger_kernel_to_qwen3_vl's apply_rotary_pos_emb_vision hands q [tokens, heads, dim] to a "
                 "kernel that reads [batch, heads, tokens, dim]: heads are taken for tokens, so a token is rotated "
                 "by the cos/sin row of its head's index, not its own",
         own_tests="no: 0.6.4's test_monkey_patch.py (1023-1049) checks only that the function is installed, "
                   "not what it computes; the PR adds no numeric test either",
         verified="0.6.4 liger_rotary_pos_emb_with_cast_and_leading_batch (transformers/rope.py:47) unsqueezes q "
                  "to [1, tokens, heads, dim] and calls liger_rotary_pos_emb as if [1, heads, tokens, dim]; 0.6.5 "
                  "liger_rotary_pos_emb_vision (rope.py:27) transposes to [1, heads, tokens, dim] and back; "
                  "monkey_patch.py installs one or the other (0.6.4:1684, 0.6.5:1755)",
         property="ConformsToReference",
         declaration=dict(dtypes=["f32"], layouts=_HALF, schemes=["default"], policy="f32_angle_product",
                          partial_rotary=False, negative_positions=True, cases=12)),  # the interpreter: ~3 s a case
    dict(id="mlx_lm_yarn_factor_dropped", package="mlx-lm", buggy="0.26.2", fixed="0.26.3",
         adapter="published_bugs.mlx_lm_releases", scenario="initialize_rope",
         title="initialize_rope builds YarnRoPE without the config's factor (scaling_factor left at 1.0)",
         links=["https://github.com/ml-explore/mlx-lm/pull/354"],
         symptom="every model that takes YaRN through initialize_rope (Qwen2's yarn option) runs unscaled "
                 "frequencies and no mscale",
         own_tests="no: fixed in passing by the PR adding gpt-oss, whose YaRN needed it",
         verified="0.26.2 initialize_rope's yarn branch passes no scaling_factor to YarnRoPE (default 1.0); "
                  "0.26.3 passes scaling_factor=scaling_config['factor']",
         property="ConformsToReference",
         declaration=dict(dtypes=["f32"], layouts=_BOTH, schemes=["yarn"], policy="f32_angle_product",
                          partial_rotary=True, negative_positions=False, max_position=1 << 24, suite="standard",
                          restrictions=["yarn_truncated_only", "no_explicit_attention_factor"],
                          # every property but ComposesAdditively, whose YaRN cases all lie outside these
                          # restrictions in the standard suite (0 judged: no verdict)
                          properties=["ConformsToReference", "DependsOnlyOnRelativePosition", "IsBatchInvariant",
                                      "IsIdentityAtPositionZero", "IsLayoutEquivariant",
                                      "IsOrthogonalWithPositiveOrientation", "KeepsPassThroughBitExact",
                                      "PreservesPairNorm", "RotatesQAndKAlike", "RotatesQTheSameWithoutK",
                                      "WritesOnlyItsViews"])),
    dict(id="mlx_lm_internlm3_positions_doubled", package="mlx-lm", buggy="0.31.3", fixed="0.32.0",
         adapter="published_bugs.mlx_lm_releases", scenario="internlm3",
         title="internlm3: positions scaled by a hard-coded 2.0 unless rope_scaling is linear",
         links=["https://github.com/ml-explore/mlx-lm/issues/1545",
                "https://github.com/ml-explore/mlx-lm/pull/1606"],
         symptom="a config without rope_scaling (or dynamic) rotates every token at twice its position",
         own_tests="no: found by a user porting the model to Swift and comparing with InternLM's reference",
         verified="0.31.3 internlm3.Attention: rope scale `1/factor if linear else 2.0`; 0.32.0 builds the rope "
                  "with rope_utils.initialize_rope (scale 1 unless linear)",
         property="ConformsToReference",
         # 0.32.0's nn.RoPE calls mx.fast.rope(base=...): exp-of-log frequencies and MLX's sin/cos, the
         # policy mlx_cpu (ABI 1.7's EXP_LOG form; docs/ERROR_MODEL.md). Before 1.7 no policy could say so
         # and the fixed release was not counted.
         declaration=dict(dtypes=["f32"], layouts=_BOTH, schemes=["default", "linear"], policy="mlx_cpu",
                          partial_rotary=False, negative_positions=False, max_position=1 << 24)),
    dict(id="mlx_lm_dsv32_indexer_interleaved", package="mlx-lm", buggy="0.31.3", fixed="0.32.0",
         adapter="published_bugs.mlx_lm_releases", scenario="deepseek_v32_indexer",
         title="DeepSeek-V3.2's indexer rotates interleaved pairs (traditional=True), DeepSeek's is half split",
         links=["https://github.com/ml-explore/mlx-lm/pull/1431"],
         symptom="the lightning indexer's q and k are rotated with the wrong pairing: outputs stay coherent but "
                 "quality silently degrades past 2048 tokens, where the indexer selects keys",
         own_tests="no: found while porting GLM 5.2, by generating long programs and playing them",
         verified="0.31.3 deepseek_v32.Indexer: initialize_rope(..., traditional=True) (deepseek_v32.py:74); "
                  "0.32.0 traditional=args.indexer_rope_interleave, default False (deepseek_v32.py:54, 76)",
         property="ConformsToReference",
         declaration=dict(dtypes=["f32"], layouts=_HALF, schemes=["yarn"], policy="f32_angle_product",
                          partial_rotary=True, negative_positions=False, max_position=1 << 24, suite="standard",
                          restrictions=["yarn_truncated_only", "no_explicit_attention_factor"],
                          # as mlx_lm_yarn_factor_dropped: ComposesAdditively judges no YaRN case in these
                          # restrictions
                          properties=["ConformsToReference", "DependsOnlyOnRelativePosition", "IsBatchInvariant",
                                      "IsIdentityAtPositionZero", "IsLayoutEquivariant",
                                      "IsOrthogonalWithPositiveOrientation", "KeepsPassThroughBitExact",
                                      "PreservesPairNorm", "RotatesQAndKAlike", "RotatesQTheSameWithoutK",
                                      "WritesOnlyItsViews"])),
]

# What the search for the corpus found but could not make a row of, and why (the table lists them).
LEFT_ALONE = [
    "transformers issues [#25681](https://github.com/huggingface/transformers/issues/25681) and "
    "[#29496](https://github.com/huggingface/transformers/issues/29496): `model.to(torch.bfloat16)` casts the "
    "rotary embedding's inv_freq buffer to bf16, so the frequencies themselves are rounded to 8 bits. Still so in "
    "5.24.0 (LlamaRotaryEmbedding(config).to(torch.bfloat16).inv_freq is bf16): no fixed release to pass.",
    "transformers PR [#32330](https://github.com/huggingface/transformers/pull/32330) (Llama 3.1 frequencies "
    "left unscaled) never shipped: 4.43.0's _compute_llama3_parameters is right; the bug lived on main between "
    "two PRs.",
    "transformers >= 4.43 dynamic NTK only grows its cache above max_position_embeddings: a request longer than "
    "that but shorter than an earlier one keeps the earlier request's frequencies (_dynamic_frequency_update's "
    "design, discussed in [#25104](https://github.com/huggingface/transformers/issues/25104)). ropecheck fails "
    "it against the per-length claim; the dynamic rows' earlier request is L + 1 tokens, which leaves it out.",
    "transformers 4.43.0 cannot build a Llama with rope_scaling at all (its LlamaRotaryEmbedding reads "
    "rope_scaling['type'], which its config validation refuses beside rope_type): the dynamic row's fixed "
    "release is 4.43.4.",
    "mlx-lm's SuScaledRoPE (LongRoPE) chose short or long factors by length in 0.29 "
    "([#660](https://github.com/ml-explore/mlx-lm/pull/660)) and uses the long ones for every length again from "
    "0.30; its call carries the request's length only as offset + tokens, which a case's positions do not give.",
    "keras-nlp's Gemma cast positions to the compute dtype (bf16) "
    "([keras-hub#1494](https://github.com/keras-team/keras-hub/issues/1494)); keras-nlp 0.8 needs tensorflow-text "
    "(TensorFlow) to import, too heavy for a layer.",
    "mlx-lm PR [#1003](https://github.com/ml-explore/mlx-lm/pull/1003): YarnRoPE and SuScaledRoPE scaled the "
    "caller's q/k in place (`x[..., :dims] = mscale * x[..., :dims]`, fixed in 0.31.2 by copying first); the "
    "values returned are right and the adapter hands each call a fresh mx.array made from the case's numpy "
    "arrays, so the write never reaches anything ropecheck reads (WritesOnlyItsViews watches the kernel's own "
    "buffers): outside what a numpy-in, numpy-out adapter can see.",
    "vLLM's old releases are 400 MB wheels pinning their own torch, not layered here; its current rows and "
    "findings F1 and F2 are above.",
]


def rows(bug):
    """The two rows of a bug, its buggy release then its fixed one, one declaration."""
    out = []
    for which in ("buggy", "fixed"):
        release = bug[which]
        out.append(dict(bug["declaration"], id=f"{bug['id']}__{which}", framework=bug["package"],
                        variant=f"{which} release", scenario=bug["scenario"], inverse=False, redraw=True,
                        layer=f"{bug['package']}-{release}", release=release, bug=bug["id"], which=which))
    return out


def all_rows():
    """(adapter, row) of every bug's two rows, in corpus order (run_frameworks.run_row's arguments)."""
    import importlib
    for bug in BUGS:
        mod = importlib.import_module(bug["adapter"])
        for row in rows(bug):
            yield bug["adapter"], dict(row, venv=mod.VENV, env=getattr(mod, "ENV", None))
