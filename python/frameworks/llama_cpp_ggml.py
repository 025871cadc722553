# SPDX-License-Identifier: MIT
"""llama.cpp's ggml CPU rope (llama-cpp-python 0.3.36's vendored llama.cpp) as
plugin rows: python/frameworks/llama_cpp/ (ggml_rope_plugin.cc, ggml_params.cc)
built by llama_cpp/build.sh from the pinned sdist into <venvs>/llama_cpp, judged
by `ropecheck check --plugin` (plugin_runner.py): the kernels' own tables
declare what they take and how they compute, so the rows here only name them.

- llama_cpp_rope_ext: ggml_rope_ext (ggml_rope_ext_back for the inverse),
  NORMAL = interleaved pairs, NEOX = half split, every scheme llama.cpp has
  (default, linear, NTK as a scaled --rope-freq-base, Llama 3.1's rope_freqs,
  YaRN, LongRoPE's lists; dynamic NTK only where it is the default), its
  arguments as llama.cpp's converter and context form them (ggml_params.cc).
  Declared fp32 running product (ROPECHECK_ANGLE_F32_RUNNING_PRODUCT, the
  policy of impls/policy's policy_ggml_cpu), int32 positions.
- llama_cpp_rope_multi_mrope: ggml_rope_multi GGML_ROPE_TYPE_MROPE (Qwen2-VL),
  sections over the case's axes, the 4th position row zero as llama.cpp
  fills it.
- llama_cpp_rope_multi_imrope: GGML_ROPE_TYPE_IMROPE (Qwen3-VL), the same rows.
- llama_cpp_rope_multi_vision: GGML_ROPE_TYPE_VISION (Qwen2-VL's vision
  encoder, tools/mtmd/models/qwen2vl.cpp:46, 130-135): half split over the
  whole head, 2 axes (a patch's y and x) of head_dim/4 pairs each, each axis
  restarting its frequencies over head_dim/2 (llama_cpp/vision_rope.cc):
  ropecheck's per-axis frequencies exactly when the two sections are equal.
  The row runs on Qwen2-VL's vision geometry (llama_cpp/qwen2_vl_vision.json:
  head_dim 80 = embed_dim 1280 / 16 heads, sections 20/20, base 10000), the
  quick suite's shapes and positions otherwise; any other call (1D, other
  sections, shared frequencies, partial rotary) the plugin refuses.

A case ggml cannot take by construction (more than 3 axes, per-axis
frequencies on an M-RoPE table) the plugin refuses with "CaseOutsideFramework",
counted apart as a Python row's refused call is.
"""
FRAMEWORK = "llama.cpp"
VENV = "llama_cpp"  # not a venv: build.sh's output under the venvs root
PLUGIN = "ggml_rope_plugin.so"
REFUSAL = "CaseOutsideFramework"
_SCHEMES = ["default", "linear", "ntk", "dynamic_ntk", "yarn", "llama3", "longrope"]
_ALL_FAMILIES = _SCHEMES + ["mrope_sections", "mrope_interleaved", "mrope_text"]
_OPS = "ggml/src/ggml-cpu/ops.cpp"

G1 = dict(finding="G1", title="ggml's CPU rope reads and writes one element past each row of an odd head_dim",
          families=_SCHEMES + ["mrope_sections"], property="ConformsToReference", message="past the end of",
          source=f"vendor/llama.cpp/{_OPS}:6453-6463 (llama-cpp-python 0.3.36)",
          test="python/frameworks/test_llama_cpp_findings.py::test_ggml_rope_odd_head_dim_leaves_its_rows",
          explanation="ggml_compute_forward_rope_flt copies the channels the rotation leaves (partial rotary) in "
                      "pairs, dst[i0] and dst[i0 + 1] for i0 = 0, 2, ... < ne0, skipping the rotated ones. For an "
                      "odd ne0 (head_dim) the last pair is (ne0 - 1, ne0): every row reads the element after it "
                      "and writes it, and the last row of a tensor reads and writes past the tensor. ropecheck "
                      "hands the plugin its own guarded buffers (q_in, q_out) as ggml's tensors, so the access "
                      "past the last row faults at the guard page. No llama.cpp model has an odd head_dim; a "
                      "ggml user with one corrupts memory. The row's table does not refuse odd head_dim cases, "
                      "and every failure is such an access.")
G2 = dict(finding="G2", title="llama.cpp's IMROPE (Qwen3-VL) does not rotate the pairs past the interleaving",
          families=_ALL_FAMILIES, property="ConformsToReference",
          source=f"vendor/llama.cpp/{_OPS}:6256-6266 with src/llama-graph.cpp:131-141 (llama-cpp-python 0.3.36)",
          test="python/frameworks/test_llama_cpp_findings.py::test_imrope_leaves_pairs_past_the_interleaving",
          explanation="Qwen3-VL (transformers modeling_qwen3_vl.apply_interleaved_mrope) takes pair i from axis "
                      "i % 3 while i < 3 * mrope_section[i % 3] and from the temporal axis otherwise: with "
                      "mrope_section 24/20/20 of 64 pairs, pairs 61 and 62 rotate with the temporal position. "
                      "ggml's IMROPE (ggml_mrope_cache_init) gives every pair not matched by its three tests "
                      "theta_e, the 4th position row, and llama.cpp fills that row with 0 for a text token "
                      "(llm_graph_input_pos::set_input) and with the image's z, 'unused for now' (mtmd.h), for "
                      "an image token: those pairs are not rotated at all. The plugin fills the 4th row as "
                      "llama.cpp does.")


def _row(id, impl, variant, layouts, **extra):
    return dict(id=id, framework=FRAMEWORK, variant=variant, plugin=PLUGIN, impl=impl, dtypes=["f32", "f16"],
                layouts=layouts, schemes=_SCHEMES, policy="(the plugin's table)",
                refusal=REFUSAL, refusal_reason="cases ggml cannot take (an odd head_dim, finding G1; more "
                "than 3 axes or per-axis frequencies for M-RoPE)", **extra)


ROWS = [_row("llama_cpp_rope_ext", "llama_cpp_rope_ext", "ggml_rope_ext, C ABI plugin",
             ["half_split", "interleaved"]),
        _row("llama_cpp_rope_multi_mrope", "llama_cpp_rope_multi_mrope", "ggml_rope_multi MROPE, Qwen2-VL",
             ["half_split"]),
        _row("llama_cpp_rope_ext_odd_head_dim", "llama_cpp_rope_ext_odd_head_dim",
             "ggml_rope_ext, odd head_dim not refused", ["half_split", "interleaved"], expect=G1),
        _row("llama_cpp_rope_multi_imrope", "llama_cpp_rope_multi_imrope", "ggml_rope_multi IMROPE, Qwen3-VL",
             ["half_split"], expect=G2),
        dict(_row("llama_cpp_rope_multi_vision", "llama_cpp_rope_multi_vision",
                  "ggml_rope_multi VISION, Qwen2-VL vision encoder", ["half_split"]),
             schemes=["default", "linear"], config="python/frameworks/llama_cpp/qwen2_vl_vision.json",
             refusal_reason="calls VISION's pairing does not say (1D, unequal or shared-frequency axes)")]
