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
  yarn_scaling_rope.py) and is indexed by position (base.py:173): a position
  outside it raises IndexError. Negative positions are not declared. A position
  beyond the rows this adapter can afford (2^24 cache elements) is refused
  with CaseOutsideFramework before vLLM is called: vLLM cannot take such a
  case by construction and ropecheck has no capability to declare the bound,
  so the table counts those cases apart.

Findings (rows with `expect`): `ntk` and `dynamic` are not HF's / the NTK-aware
formula; see FINDINGS in make_table's output and test_vllm_findings.py.
"""
import math

import hf_transformers

FRAMEWORK = "vllm"
VENV = "vllm"
ENV = {"VLLM_TARGET_DEVICE": "cpu", "VLLM_LOGGING_LEVEL": "ERROR"}
_POLICY = {"f32": "f32_angle_product", "bf16": "hf_eager", "f16": "hf_eager"}
MAX_CACHE_ELEMENTS = 1 << 24
REFUSAL = "positions beyond vLLM's cos/sin cache rows (max_position; IndexError in vLLM)"

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

ROWS = [dict(id=f"vllm_native_{dt}", framework=FRAMEWORK, variant="forward_native", dtypes=[dt],
             layouts=["half_split", "interleaved"], schemes=["default", "linear", "yarn", "llama3"],
             policy=_POLICY[dt], inverse=False, partial_rotary=True, negative_positions=False, env=ENV,
             refusal_reason=REFUSAL) for dt in ("f32", "bf16", "f16")]
ROWS += [dict(id=f"vllm_native_{scheme}_f32", framework=FRAMEWORK, variant="forward_native", dtypes=["f32"],
              layouts=["half_split", "interleaved"], schemes=[scheme], policy="f32_angle_product", inverse=False,
              partial_rotary=True, negative_positions=False, env=ENV, refusal_reason=REFUSAL, expect=finding)
         for scheme, finding in (("ntk", F1), ("dynamic_ntk", F2))]


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


def cache_rows(rope, rp, positions):
    """The max_position to build vLLM's cache with, or CaseOutsideFramework."""
    top = int(positions.max()) + 1 if positions.size else 1
    if rp["rope_type"] == "yarn":  # YaRN sizes its own cache: original_max_position * factor rows
        rows = int(rp["original_max_position_embeddings"] * rp["factor"])
        need = rows
    elif rp["rope_type"] == "dynamic":  # the model's max_position_embeddings, as vLLM's model code passes it
        rows = int(rope.hf_config.get("max_position_embeddings", 2048))
        need = rows
    else:  # frequencies do not depend on the row count: a power of two that holds every position
        rows = max(int(rope.hf_config.get("max_position_embeddings", 2048)), 1 << math.ceil(math.log2(top)))
        need = rows
    if top > rows or need * rope.rotary_dim > MAX_CACHE_ELEMENTS:
        raise CaseOutsideFramework(f"position {top - 1} needs a cache of {max(top, rows)} rows x {rope.rotary_dim}")
    return rows


def make_kernel(row):
    import numpy as np
    import torch
    from vllm.config import DeviceConfig, VllmConfig, set_current_vllm_config
    from vllm.model_executor.layers.rotary_embedding import get_rope
    torch.set_num_threads(1)
    config = VllmConfig(device_config=DeviceConfig(device="cpu"))

    def vllm_native(q, k, positions, rope):
        dt = hf_transformers.torch_dtype(rope.dtype)
        rp = rope_parameters(rope)
        rows = cache_rows(rope, rp, positions)
        t, hq, hd = q.shape
        with set_current_vllm_config(config):
            emb = get_rope(hd, rows, is_neox_style=(rope.layout == "half_split"), rope_parameters=rp, dtype=dt)
            tq = torch.from_numpy(q.copy()).to(dt).reshape(t, hq * hd)
            tk = torch.from_numpy(k.copy()).to(dt).reshape(t, k.shape[1] * hd)
            with torch.no_grad():
                qo, ko = emb.forward_native(torch.from_numpy(positions.astype(np.int64)), tq, tk)
        return (hf_transformers.to_numpy(qo.reshape(t, hq, hd), q),
                hf_transformers.to_numpy(ko.reshape(t, k.shape[1], hd), k))

    return vllm_native
