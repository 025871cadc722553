# SPDX-License-Identifier: MIT
"""The base a framework's caller passes for NTK-aware and dynamic NTK, where
the framework takes a base and not the scheme (mx.fast.rope, penzai's
ApplyRoPE): HF's formulas (transformers modeling_rope_utils,
_compute_dynamic_ntk_parameters; NTK-aware b s^(d/(d-2))) in Python floats,
as such a caller computes them. Shared by mlx_rope.py and penzai_rope.py."""


def scaled_base(config, d):
    """config: ropecheck's schema (rope.config); d: the rotary width."""
    b, s = config["base"], config["factor"]
    if config["scheme"] == "ntk":
        return b * s ** (d / (d - 2))
    if config["scheme"] == "dynamic_ntk":
        L = config["original_max_position"]
        n = max(config["seq_len"], L)
        return b * (s * n / L - (s - 1)) ** (d / (d - 2))
    return b
