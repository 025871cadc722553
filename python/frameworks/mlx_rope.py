# SPDX-License-Identifier: MIT
"""MLX's mx.fast.rope (mlx 0.32.4 with mlx-cpu 0.32.4, the Linux x86_64 CPU wheels on PyPI, pinned in
constraints.txt [mlx]) as a ropecheck kernel.

Source read: ml-explore/mlx at v0.32.1 (its rope is unchanged in the later source stored; the wheel is
0.32.4 and its arithmetic is what the rows judge).
- dispatch: RoPE::use_fallback is true for a CPU stream (mlx/backend/metal/rope.cpp:10-12; the CPU-only
  build's no_gpu/primitives.cpp the same), so the CPU runs rope's fallback of composed ops
  (mlx/fast.cpp:434-530).
- frequencies: exp(arange(0, -d/2, -1) * fl32(logf(base) / (d/2))) in fp32 (mlx/fast.cpp:459-466: the
  exp-of-log form, ABI 1.7's FREQ_EXP_LOG); with `freqs`, reciprocal(freqs) in fp32 (fast.cpp:468-469: a
  table, FREQ_TABLE).
- angle: positions = (arange(T) + offset) * scale in fp32, theta = positions * inv_freq (fast.cpp:454-470);
  this adapter passes one token per row of the batch with its position as that row's int32 offset (x as
  [tokens, heads, 1, head_dim], offset a vector of tokens ids), so a position is fl32(offset) and the linear
  scheme's 1/s is the scale.
- sin/cos: MLX's CPU cos/sin (mlx/backend/cpu/simd/math.h:62-138, Cephes' polynomial after a three-part
  reduction by pi/4, libm past 2^23), cast to the input dtype (fast.cpp:471-472).
- rotation: x1*cos - x2*sin and x1*sin + x2*cos, each op in the input dtype (fast.cpp:474-490);
  traditional=True pairs (x[2i], x[2i+1]) (interleaved), False (x[i], x[i + d/2]) (half split); channels
  past `dims` pass through (fast.cpp:492-520).
- exp: 2^(x fl32(1.442695)) by a Cephes polynomial (math.h:28-56).

Policy (golden/catalog/catalog.cc, docs/ERROR_MODEL.md "MLX's exp and sin/cos"): `mlx_cpu`, hf_eager's rounding in
the activation dtype with the exp-of-log frequency form (exp within 1 ulp plus 7.3e-8 |x|) and MLX's
sin/cos as a fast sin/cos (7.78e-8 abs, phase 1.84e-11 |x|); `mlx_cpu_freqs` the same with the table form.
The rows "without" a part declare mlx_cpu with that part taken back, and must fail.

Schemes: the base (default), the scale (linear: scale = 1/s), the scaled base a caller passes as `base`
(NTK-aware b s^(d/(d-2)), dynamic NTK b (s n/L - (s-1))^(d/(d-2)), computed here in double as HF's Python
floats are), and explicit frequencies through `freqs` (their reciprocals). mx.fast.rope has no attention
factor (YaRN, LongRoPE) and no per-pair factors of its own (Llama 3.1's come through `freqs` from the
caller's code, not MLX's). Declined (decline.Unsupported): a position outside int32 (the offset is
int32, mlx/fast.cpp:406-408 casts any other integer type to it).
"""
from decline import Unsupported
from ntk_base import scaled_base

FRAMEWORK = "mlx"
VENV = "mlx"
BASE_SCHEMES = ["default", "linear", "ntk", "dynamic_ntk"]
# The standard suite: a row's dtype and schemes leave about a fifth of the quick suite's cases, and MLX's
# calls are fast (about 10 s a row).
_COMMON = dict(framework=FRAMEWORK, layouts=["half_split", "interleaved"], inverse=False, partial_rotary=True,
               negative_positions=True, suite="standard")

ROWS = ([dict(id=f"mlx_fast_rope_{dt}", variant="mx.fast.rope, base/scale/offset", dtypes=[dt],
              schemes=BASE_SCHEMES, policy="mlx_cpu", **_COMMON) for dt in ("f32", "bf16", "f16")]
        + [dict(id="mlx_fast_rope_freqs", variant="mx.fast.rope, freqs", dtypes=["f32", "bf16", "f16"],
                schemes=["explicit"], policy="mlx_cpu_freqs", **_COMMON)]
        # The same code under the policy it would need without 1.7's parts: each must fail.
        + [dict(id="mlx_fast_rope_without_exp_log", variant="mx.fast.rope, base/scale/offset", dtypes=["f32"],
                schemes=BASE_SCHEMES, policy=dict(name="mlx_cpu", freq_form="power", freq_exp_slope=0.0),
                without="exp_log", **_COMMON),
           dict(id="mlx_fast_rope_without_table", variant="mx.fast.rope, freqs", dtypes=["f32"],
                schemes=["explicit"], policy=dict(name="mlx_cpu_freqs", freq_form="power"), without="table",
                **_COMMON)])

_INT32 = 2**31


def version():
    import mlx.core as mx
    from importlib.metadata import version as dist_version
    return f"mlx {mx.__version__}, mlx-cpu {dist_version('mlx-cpu')} (CPU)"


def make_kernel(row):
    import mlx.core as mx
    import numpy as np
    mx.set_default_device(mx.cpu)
    mx_dtype = {"f32": mx.float32, "f16": mx.float16, "bf16": mx.bfloat16}

    def mlx_rope(q, k, positions, rope):
        if np.any(np.abs(positions) >= _INT32):
            raise Unsupported("position beyond int32: mx.fast.rope's offset is an int32")
        cfg, d = rope.config, rope.rotary_dim
        kwargs = dict(traditional=rope.layout == "interleaved", scale=1.0, base=None, freqs=None)
        if rope.scheme == "explicit":
            # the caller's table, as reciprocals (inv_freq 0: an infinite period, reciprocal 0)
            with np.errstate(divide="ignore"):
                kwargs["freqs"] = mx.array((1.0 / np.asarray(cfg["inv_freq"], dtype=np.float64)).astype(np.float32))
        else:
            kwargs["base"] = float(scaled_base(cfg, d))
            if rope.scheme == "linear":
                kwargs["scale"] = 1.0 / cfg["factor"]
        offset = mx.array(positions.astype(np.int32))

        def run(x):
            t, h, hd = x.shape
            if x.size == 0:  # no heads: nothing to rotate (mx.fast.rope needs a non-empty batch)
                return x.copy()
            a = mx.array(x.reshape(t, h, 1, hd)).astype(mx_dtype[rope.dtype])  # bf16 arrives widened, exact
            y = mx.fast.rope(a, d, offset=offset, **kwargs)
            out = np.array(y.astype(mx.float32) if rope.dtype == "bf16" else y)
            return out.reshape(t, h, hd)

        return run(q), run(k)

    return mlx_rope
