# SPDX-License-Identifier: MIT
"""JAX on CPU through a JAX model library's own RoPE: penzai's ApplyRoPE and ApplyRoPEToSubset (penzai 0.2.5,
Google DeepMind's JAX research toolkit, whose Gemma, Llama, Mistral and GPT-NeoX transformers use them;
jax/jaxlib 0.10.2; pinned in constraints.txt [jax]) as a ropecheck kernel, jitted as a model's forward is.

Source (penzai 0.2.5 as its wheel installs it, penzai/nn/embeddings.py):
- ApplyRoPE._apply_1d (lines 234-250): fraction = 2 * arange(head_dim // 2) / head_dim (int32, then an fp32
  division), timescale = max_wavelength ** fraction (XLA's fp32 pow), sinusoid = position / timescale
  (fp32), sin and cos in fp32, first_half * cos - second_half * sin and second_half * cos + first_half *
  sin (half split: jnp.split in halves). In a bf16 or fp16 model the halves meet fp32 cos/sin and JAX
  promotes the products to fp32; ApplyRoPE.__call__ (lines 252-280) casts the result back to the input
  dtype once.
- ApplyRoPEToSubset (lines 284-330): ApplyRoPE on the first rope_subset_size channels, the rest passed
  through (GPT-NeoX's partial rotary).
(penzai's later source adds a scale_factor for Gemma 3's linear scaling; 0.2.5 has none, so no linear.)
The same arithmetic as Gemma's own apply_rope (google-deepmind/gemma, gemma/gm/math/_positional_embeddings.py),
whose package needs tensorflow and a git dependency, so not here.

XLA's CPU runtime flushes subnormals (FTZ/DAZ: 1e-40 * 1 is 0 on this jaxlib, a bf16 1e-40 too; fp16's
subnormals are normal fp32 numbers, kept). Its fp32 pow and sin/cos measured within 0.502 and 0.561 ulp of
the exact value (bench/RESULTS.md), under libm's declared 1. Policy: `xla_cpu`, f32_angle_product with
subnormals flushed (ABI 1.7); the row "without" the part declares f32_angle_product and must fail.

Schemes: default (max_wavelength = base) and the scaled bases NTK-aware and dynamic NTK a caller passes as
max_wavelength (computed in double, as HF's Python floats are). Declined (decline.Unsupported): a position
outside int32 (JAX without x64 holds integer arrays in int32).
"""
from decline import Unsupported
from ntk_base import scaled_base

FRAMEWORK = "penzai (JAX)"
VENV = "jax"
SCHEMES = ["default", "ntk", "dynamic_ntk"]
# proxy.py appends XLA's --xla_cpu_max_isa=AVX2 on x86-64, as it pins torch's ISA.
_ENV = {"JAX_PLATFORMS": "cpu", "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"}
# Half split and three schemes leave few of the quick suite's cases: the standard suite's.
_COMMON = dict(framework=FRAMEWORK, variant="ApplyRoPE, jit, CPU", layouts=["half_split"], schemes=SCHEMES,
               inverse=False, partial_rotary=True, negative_positions=True, env=_ENV, suite="standard")

ROWS = ([dict(id=f"penzai_rope_{dt}", dtypes=[dt], policy="xla_cpu", **_COMMON) for dt in ("f32", "bf16", "f16")]
        # The same code under the policy it would need without 1.7's flushed subnormals: must fail.
        + [dict(id="penzai_rope_without_flush", dtypes=["f32", "bf16"], policy="f32_angle_product",
                without="subnormals flushed", **_COMMON)])

_INT32 = 2**31


def version():
    import jax
    from importlib.metadata import version as dist_version
    return f"penzai {dist_version('penzai')}, jax {jax.__version__}, jaxlib {dist_version('jaxlib')} (CPU)"


def make_kernel(row):
    import functools

    import jax
    import jax.numpy as jnp
    import numpy as np
    from penzai import pz

    @functools.partial(jax.jit, static_argnames=("wavelength", "rotary_dim"))
    def apply(x, pos, *, wavelength, rotary_dim):
        named = pz.nx.wrap(x).tag("seq", "heads", "embedding")
        kw = dict(embedding_axis="embedding", max_wavelength=wavelength, positions_input_name="token_positions")
        layer = (pz.nn.ApplyRoPE(**kw) if rotary_dim == x.shape[-1]
                 else pz.nn.ApplyRoPEToSubset(rope_subset_size=rotary_dim, **kw))
        out = layer(named, token_positions=pz.nx.wrap(pos).tag("seq"))
        return out.unwrap("seq", "heads", "embedding")

    jdtype = {"f32": jnp.float32, "f16": jnp.float16, "bf16": jnp.bfloat16}

    def penzai_rope(q, k, positions, rope):
        if np.any(np.abs(positions) >= _INT32):
            raise Unsupported("position beyond int32: JAX without x64 holds positions as int32")
        cfg = rope.config
        wavelength = float(scaled_base(cfg, rope.rotary_dim))
        pos = jnp.asarray(positions.astype(np.int32))

        def run(x):
            if x.size == 0:  # no heads: nothing to rotate
                return x.copy()
            y = apply(jnp.asarray(x).astype(jdtype[rope.dtype]), pos, wavelength=wavelength,
                      rotary_dim=rope.rotary_dim)
            return np.asarray(y.astype(jnp.float32) if rope.dtype == "bf16" else y)

        return run(q), run(k)

    return penzai_rope
