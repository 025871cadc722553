#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""XLA's CPU fp32 pow and sin/cos (JAX on CPU) against float64, and whether its runtime flushes subnormals:
the measurements behind policy xla_cpu (docs/ERROR_MODEL.md, "What real kernels declare"). Run in the jax
venv (python/frameworks/install.sh):

    JAX_PLATFORMS=cpu $ROPECHECK_FRAMEWORKS_VENVS/jax/bin/python bench/xla_math_sweep.py   # about 30 s

Results in bench/RESULTS.md."""
import math

import jax.numpy as jnp
import numpy as np


def ulps(got, exact):
    return np.abs(got - exact) / np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64)


def main():
    tiny = np.array([1e-40, 2e-38], np.float32)
    print("fp32 1e-40 * 1, 2e-38 * 1:", np.array(jnp.asarray(tiny) * jnp.float32(1)),
          "bf16 1e-40 * 1:", np.array(jnp.asarray(tiny[:1]).astype(jnp.bfloat16) * jnp.bfloat16(1)).astype(np.float32),
          "fp16 1e-7 * 1:", np.array(jnp.asarray(np.float16(1e-7)) * jnp.float16(1)))
    rng = np.random.default_rng(0)
    b = rng.uniform(2, 1e7, 2_000_000).astype(np.float32)
    e = rng.uniform(0, 1, 2_000_000).astype(np.float32)
    got = np.array(jnp.power(jnp.asarray(b), jnp.asarray(e))).astype(np.float64)
    print(f"pow: 2e6 arguments, largest error {ulps(got, np.power(b.astype(np.float64), e)).max():.4f} ulp")
    worst = 0.0
    for a0, a1 in [(0, 2 * math.pi), (2 * math.pi, 1e3), (1e3, 1e6), (1e6, 2.0**31)]:
        v = rng.uniform(a0, a1, 4_000_000).astype(np.float32)
        vd = v.astype(np.float64)
        worst = max(worst, ulps(np.array(jnp.sin(jnp.asarray(v))).astype(np.float64), np.sin(vd)).max(),
                    ulps(np.array(jnp.cos(jnp.asarray(v))).astype(np.float64), np.cos(vd)).max())
    print(f"sin/cos: 1.6e7 arguments of [0, 2^31], largest error {worst:.4f} ulp")


if __name__ == "__main__":
    main()
