# SPDX-License-Identifier: MIT
"""vLLM (0.33.0, its own venv: it pins torch 2.14.0) as a ropecheck kernel:
`get_rope(...)` then `forward_native`, vLLM's pure-PyTorch path, on the CPU.

Line numbers are vLLM 0.33.0's, under vllm/model_executor/layers/rotary_embedding/.
- get_rope needs a current VllmConfig (CustomOp reads it); a GPU-less machine
  needs the CPU device stated (VLLM_TARGET_DEVICE=cpu and DeviceConfig("cpu")).
  forward_cpu needs vllm._C, absent from the PyPI wheel: forward_native is it.
- base.py:80-103: inv_freq = 1 / base ** (arange(0, d, 2).float() / d) and the
  cache cos/sin(fl32(t) * inv_freq) in fp32 for t in 0..max_position-1;
  base.py:105-118 casts the cache to the activation dtype; base.py:161-201 and
  common.py:134-165 (ApplyRotaryEmb.forward_static): x1*cos - x2*sin,
  x2*cos + x1*sin, each op in the activation dtype (enable_fp32_compute off).
  So fp32 is f32_angle_product and bf16/fp16 hf_eager, as transformers eager.
- The cache has max_position rows (YaRN: original_max_position * factor,
  yarn_scaling_rope.py; dynamic NTK: the model's max_position_embeddings) and
  is indexed by position (base.py:173): a position outside it raises
  IndexError. Each row declares the largest position its cache serves
  (ropecheck.check's max_position; cases beyond are skipped, counted by reason):
  2^17 where the adapter sizes the cache to the call (default, linear, Llama
  3.1, NTK), 2048
  for YaRN and dynamic NTK, the smallest original_max_position * factor and
  max_position_embeddings of the suite's configs (2048 x 1.2 and 2048).
  Negative positions are not declared. A cache over 2^26 elements (a YaRN
  config's whole L x s rows) the adapter does not build: CaseOutsideFramework,
  counted apart as a refused call.
- DeepSeek scaling (deepseek_scaling_rope.py:25-160, get_rope's "deepseek_yarn",
  what vLLM's DeepSeek models pass for an HF "yarn" config with mscale): YaRN
  with mscale / mscale_all_dim folded into the cache, the correction range
  always floored/ceiled and no explicit attention_factor (get_rope passes only
  beta_fast, beta_slow, mscale, mscale_all_dim): declared YaRN truncated only,
  no explicit attention factor.
- M-RoPE (mrope.py:376-440, MRotaryEmbedding.forward_native; get_rope returns it
  for rope_parameters with mrope_section): positions [3, tokens], the cos/sin
  rows split by mrope_section, chunk i from axis i (sections), or
  apply_interleaved_rope (mrope_interleaved, Qwen3-VL); a 1D case is its
  text-only path (positions [tokens]). Its cache holds max_position * 4 rows
  (positions_factor). As in hf_mrope.py, fewer than 3 axes get empty sections,
  more are refused, and per-axis frequencies or a per-pair table are not
  declared.
- One row per dtype where the policy differs by dtype; a row over the three
  dtypes declares hf_eager, which in fp32 is f32_angle_product.

Findings (rows with `expect`): `ntk` and `dynamic` are not HF's / the NTK-aware
formula; see FINDINGS in make_table's output and test_vllm_findings.py.
"""
import math

import numpy as np

import hf_transformers

FRAMEWORK = "vllm"
VENV = "vllm"
ENV = {"VLLM_TARGET_DEVICE": "cpu", "VLLM_LOGGING_LEVEL": "ERROR"}
_POLICY = {"f32": "f32_angle_product", "bf16": "hf_eager", "f16": "hf_eager"}
MAX_CACHE_ELEMENTS = 1 << 26  # what the adapter affords per call: 256 MiB of fp32 cos/sin
SIZED_ROWS = 1 << 17  # a cache the adapter sizes to the call, up to 2^17 rows (x 512 channels = MAX_CACHE_ELEMENTS)
FIXED_ROWS = 2048     # vLLM's own size: the suite's smallest original_max_position * factor, max_position_embeddings
REFUSAL = ("a cos/sin cache over the adapter's 2^26 elements (vLLM builds YaRN's whole original_max_position x "
           "factor rows)")

F1 = dict(finding="F1", title="vLLM's `ntk` is not the NTK-aware base change",
          families=["ntk"], property="ConformsToReference",
          source="vllm/model_executor/layers/rotary_embedding/ntk_scaling_rope.py:31-36 (vLLM 0.33.0)",
          test="python/frameworks/test_vllm_findings.py::test_vllm_ntk_is_fixed_ntk_not_ntk_aware",
          explanation="vLLM's NTKScalingRotaryEmbedding (cites kexue.fm/archives/9706, 'fixed NTK') computes "
                      "inv_freq_i = (b s)^(-2i/d) / s^(2/d): the base times s and every frequency, the highest "
                      "included, divided by s^(2/d). The NTK-aware scheme ropecheck's `ntk` family states "
                      "(docs/FREQUENCY_SCHEMES.md) is b' = b s^(d/(d-2)), inv_freq_i = b'^(-2i/d), which keeps "
                      "inv_freq_0 = 1. transformers has no static `ntk` rope_type, so there is no HF definition "
                      "to side with: the two are different schemes under one name, and a config meant for one "
                      "gives O(1) different angles under the other.")
F2 = dict(finding="F2", title="vLLM's `dynamic` with an HF config is the unscaled default scheme",
          families=["dynamic_ntk"], property="ConformsToReference",
          source="vllm/model_executor/layers/rotary_embedding/dynamic_ntk_scaling_rope.py:53-66 with "
                 "__init__.py:224-228 (vLLM 0.33.0)",
          test="python/frameworks/test_vllm_findings.py::test_vllm_dynamic_is_default_for_hf_config",
          explanation="HF (modeling_rope_utils._compute_dynamic_ntk_parameters) uses base "
                      "b (s n/L - (s-1))^(d/(d-2)) for a sequence of n > L tokens (L = max_position_embeddings). "
                      "vLLM evaluates b (s max_position/max_trained_positions - (s-1))^(d/(d-2)) once, and "
                      "max_trained_positions defaults to max_position (the model's max_position_embeddings), so "
                      "an HF config {'rope_type': 'dynamic', 'factor': s} gives base b: the default frequencies "
                      "at every length. Past L tokens vLLM's angles differ from HF's by O(1).")

def _row(id, dtypes, schemes, max_position, variant="forward_native", **extra):
    return dict(id=id, framework=FRAMEWORK, variant=variant, dtypes=dtypes,
                layouts=["half_split", "interleaved"], schemes=schemes,
                policy=_POLICY[dtypes[0]] if len(dtypes) == 1 else "hf_eager", inverse=False, partial_rotary=True,
                negative_positions=False, env=ENV, refusal_reason=REFUSAL, max_position=max_position, **extra)


ALL_DTYPES = ["f32", "bf16", "f16"]
ROWS = [_row(f"vllm_native_{dt}", [dt], ["default", "linear", "llama3"], SIZED_ROWS) for dt in ALL_DTYPES]
# YaRN's 2048 positions leave 1-2 quick cases: these rows run the standard suite (5x the cases)
ROWS += [_row("vllm_native_yarn", ALL_DTYPES, ["yarn"], FIXED_ROWS, suite="standard"),
         _row("vllm_deepseek_yarn", ALL_DTYPES, ["yarn"], FIXED_ROWS, variant="DeepseekScalingRotaryEmbedding",
              rope_type="deepseek_yarn", restrictions=["yarn_truncated_only", "no_explicit_attention_factor"],
              suite="standard"),
         _row("vllm_mrope", ALL_DTYPES, ["default"], SIZED_ROWS, variant="MRotaryEmbedding, forward_native",
              multi_axis=["sections", "interleaved"])]
ROWS += [_row(f"vllm_native_{scheme}_f32", ["f32"], [scheme], rows, expect=finding)
         for scheme, finding, rows in (("ntk", F1, SIZED_ROWS), ("dynamic_ntk", F2, FIXED_ROWS))]


class CaseOutsideFramework(Exception):
    """A case vLLM cannot take by construction (run_frameworks.py counts it apart)."""


def version():
    import torch
    import vllm
    return f"vllm {vllm.__version__}, torch {torch.__version__.split('+')[0]}"


def rope_parameters(rope):
    """The HF config's rope fields as get_rope takes them (the keys vLLM reads from config.rope_parameters)."""
    hf = rope.hf_config
    rp = {"rope_theta": float(hf.get("rope_theta", 10000.0)), "rope_type": "default"}
    if hf.get("partial_rotary_factor") is not None:
        rp["partial_rotary_factor"] = float(hf["partial_rotary_factor"])
    scaling = dict(hf.get("rope_scaling") or {})
    if scaling:
        rp.update({k: v for k, v in scaling.items() if k != "type"})
        rp["rope_type"] = scaling.get("rope_type", scaling.get("type", "default"))
    return rp


def cache_rows(rope, rp, positions, row):
    """The max_position to build vLLM's cache with, or CaseOutsideFramework (a case past the row's declared
    max_position never arrives: ropecheck skips it)."""
    top = int(np.abs(positions).max()) + 1 if positions.size else 1
    if rp["rope_type"] in ("yarn", "deepseek_yarn"):  # sizes its own cache: original_max_position * factor rows
        rows = int(rp["original_max_position_embeddings"] * rp["factor"])
    elif rp["rope_type"] == "dynamic":  # the model's max_position_embeddings, as vLLM's model code passes it
        rows = int(rope.hf_config.get("max_position_embeddings", 2048))
    else:  # frequencies do not depend on the row count: a power of two that holds every position
        model_rows = min(int(rope.hf_config.get("max_position_embeddings", 2048)), row["max_position"])
        rows = max(model_rows, 1 << math.ceil(math.log2(top)))
    if top > rows or rows * rope.rotary_dim > MAX_CACHE_ELEMENTS:
        raise CaseOutsideFramework(f"position {top - 1} needs a cache of {max(top, rows)} rows x {rope.rotary_dim}")
    return rows


def mrope_call(rope, rp, positions):
    """rope_parameters and positions of an M-RoPE call (MRotaryEmbedding): sections padded to 3 axes."""
    n = rope.num_axes
    if rope.axis_assignment not in ("sections", "interleaved") or rope.axis_frequencies != "shared":
        raise CaseOutsideFramework(f"{rope.axis_assignment} assignment, {rope.axis_frequencies} frequencies")
    interleaved = rope.axis_assignment == "interleaved"
    if n > 3 or (interleaved and n != 3):
        raise CaseOutsideFramework(f"{n} axes with the {rope.axis_assignment} assignment (vLLM's M-RoPE takes 3)")
    rp = dict(rp, mrope_section=list(rope.axis_sections) + [0] * (3 - n), mrope_interleaved=interleaved)
    rows = np.zeros((3, positions.shape[1]), dtype=np.int64)
    rows[:n] = positions
    return rp, rows


def make_kernel(row):
    import torch
    from vllm.config import DeviceConfig, VllmConfig, set_current_vllm_config
    from vllm.model_executor.layers import rotary_embedding
    from vllm.model_executor.layers.rotary_embedding import get_rope
    torch.set_num_threads(1)
    config = VllmConfig(device_config=DeviceConfig(device="cpu"))

    def vllm_native(q, k, positions, rope):
        dt = hf_transformers.torch_dtype(rope.dtype)
        rp = rope_parameters(rope)
        if row.get("rope_type"):  # the class a model picks for this HF rope_type (DeepSeek: deepseek_yarn)
            rp["rope_type"] = row["rope_type"]
        pos = positions.astype(np.int64)
        rows = cache_rows(rope, rp, pos, row)
        extra = {}
        if "multi_axis" in row:  # M-RoPE: the text-only path for 1D, [3, tokens] positions otherwise
            rp = dict(rp, mrope_section=[rope.rotary_dim // 2, 0, 0]) if not rope.num_axes else rp
            if rope.num_axes:
                rp, pos = mrope_call(rope, rp, pos)
            rows = max(1, -(-rows // 4))  # MRotaryEmbedding caches max_position * positions_factor (4) rows
            extra["mrope_positions_factor"] = 4
        t, hq, hd = q.shape
        if len(rotary_embedding._ROPE_DICT) > 4:  # get_rope keeps every instance (and its cache) it made
            rotary_embedding._ROPE_DICT.clear()
        with set_current_vllm_config(config):
            emb = get_rope(hd, rows, is_neox_style=(rope.layout == "half_split"), rope_parameters=rp, dtype=dt,
                           **extra)
            # [tokens, heads * head_dim] as the attention layers pass it; DeepSeek's MLA passes [tokens, heads,
            # head_dim] (its forward_static slices the last dim, deepseek_scaling_rope.py:146-147)
            flat = rp["rope_type"] != "deepseek_yarn"
            tq = torch.from_numpy(q.copy()).to(dt).reshape((t, hq * hd) if flat else (t, hq, hd))
            tk = torch.from_numpy(k.copy()).to(dt).reshape((t, k.shape[1] * hd) if flat else (t, k.shape[1], hd))
            with torch.no_grad():
                qo, ko = emb.forward_native(torch.from_numpy(pos), tq, tk)
        return (hf_transformers.to_numpy(qo.reshape(t, hq, hd), q),
                hf_transformers.to_numpy(ko.reshape(t, k.shape[1], hd), k))

    return vllm_native
