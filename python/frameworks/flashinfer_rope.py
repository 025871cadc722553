# SPDX-License-Identifier: MIT
"""FlashInfer's CUDA rope kernels (flashinfer-python 0.7.2.post1's
flashinfer/data/include/flashinfer/pos_enc.cuh) as plugin rows:
python/frameworks/flashinfer/ (flashinfer_rope_plugin.cu, flashinfer_args.cc)
built by flashinfer/build.sh with nvcc from the pinned wheel into
<venvs>/flashinfer, judged by `ropecheck check --plugin` (plugin_runner.py)
where a GPU is present; the kernels' own tables declare what they take and how
they compute (the plugin's comment derives each part from the kernel's source).

- flashinfer_rope_pos_ids: BatchQKApplyRotaryPosIds (apply_rope_pos_ids),
  interleaved and not, rope_scale as linear interpolation.
- flashinfer_rope_llama31_pos_ids: BatchQKApplyLlama31RotaryPosIds
  (apply_llama31_rope_pos_ids), Llama 3.1's bands.
- flashinfer_rope_cos_sin_cache: BatchQKApplyRotaryPosIdsCosSinCache
  (apply_rope_with_cos_sin_cache) on the caller's fp32 cache (ABI 1.6), any
  scheme.
- flashinfer_rope_quantize_append: RopeQuantizeAppendPagedKVCache
  (rope_quantize_fp8_append_paged_kv_cache, GQA/MHA) on the caller's fp32
  cache: q written as fp8 codes scaled by quant_scale_q (ABI 1.8), k and v
  appended to a paged fp8 cache scaled by quant_scale_kv (ABI 1.4); judged by
  Rope/QuantizesTheRotatedQ and Rope/CachesTheRotatedKAndV alone (the row's
  check_args): it has no plain output, so every other property's call is
  declined.

The plugin declines (ABI 1.7 MAY_DECLINE) a head_dim FlashInfer's pos_ids
launchers do not dispatch (64, 128, 256, 512) and a rotary_dim its vectors do
not fit; its fourth table, flashinfer_rope_pos_ids_any_rotary_dim, does not
decline the latter (not a row: what it shows needs a GPU run first).

Without a GPU (the plugin's cudaGetDeviceCount, asked through ctypes) a row
says "built, not run: no GPU" and judges nothing: never a pass or a fail.
POLICY is what `ropecheck check` prints for the pos_ids tables' declaration
(the cache table's in CACHE_POLICY), shown for a row not run; a run shows the
report's.
"""
FRAMEWORK = "FlashInfer"
VENV = "flashinfer"  # not a venv: build.sh's output under the venvs root
PLUGIN = "flashinfer_rope_plugin.so"
NO_GPU = "built, not run: no GPU"
POLICY = ("freq f32 exp_log (exp/log 5 ulp), angle f32 product, fast sincos (<= 4.18e-07 abs for |x| <= 3.14, "
          "phase error <= 1.6e-07 |x|), math f32 fma, cos/sin f32, subnormals flushed")
CACHE_POLICY = "freq f32, angle f32 product, libm sincos (1 ulp), math f32 fma, cos/sin f32, subnormals flushed"
_ALL = ["default", "linear", "ntk", "dynamic_ntk", "yarn", "llama3", "longrope", "explicit"]


def _row(id, variant, schemes, policy, **extra):
    return dict(id=id, framework=FRAMEWORK, variant=variant, plugin=PLUGIN, impl=id, dtypes=["bf16", "f16"],
                layouts=["half_split", "interleaved"], schemes=schemes, policy=policy, needs_gpu=True,
                not_run_text=NO_GPU, refusal="CaseOutsideFramework",
                refusal_reason="none: the plugin declines (MAY_DECLINE) what FlashInfer cannot take", **extra)


ROWS = [_row("flashinfer_rope_pos_ids", "apply_rope_pos_ids, CUDA plugin", ["default", "linear"], POLICY),
        _row("flashinfer_rope_llama31_pos_ids", "apply_llama31_rope_pos_ids, CUDA plugin", ["llama3"], POLICY),
        _row("flashinfer_rope_cos_sin_cache", "apply_rope_with_cos_sin_cache, CUDA plugin", _ALL, CACHE_POLICY),
        # the properties its outputs can be judged by: it has no plain q output, so every other property's call
        # is declined, and those properties would fail the verdict floor on declines, not on FlashInfer's output
        _row("flashinfer_rope_quantize_append", "rope_quantize_fp8_append_paged_kv_cache, CUDA plugin", _ALL,
             CACHE_POLICY, check_args=["--property", "QuantizesTheRotatedQ", "--property", "CachesTheRotatedKAndV"])]
