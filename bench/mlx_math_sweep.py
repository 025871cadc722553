#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""MLX's CPU exp and sin/cos against float64, the measurements behind policy mlx_cpu's numbers
(docs/ERROR_MODEL.md, "MLX's exp and sin/cos"). Run in the mlx venv (python/frameworks/install.sh):

    $ROPECHECK_FRAMEWORKS_VENVS/mlx/bin/python bench/mlx_math_sweep.py        # about 4 minutes on 2 cores

Prints: exp's error beyond the derived growth u32 + |fl32(1/ln 2) ln 2 - 1| per unit |x| on 2e7 arguments of
[-25, 0] (the declared 1 ulp must hold it), sin/cos's largest error over every fp32 of [0, 2 pi] (the declared
abs error), and beyond 2 pi the largest (error - that) / |x| on samples up to 2^31 (under the derived phase
slope). Results in bench/RESULTS.md."""
import math

import mlx.core as mx
import numpy as np

U = 2.0**-24


def main():
    mx.set_default_device(mx.cpu)
    slope = U + abs(float(np.float32(1.0 / math.log(2))) * math.log(2) - 1)
    x = -np.random.default_rng(1).uniform(0, 25, 20_000_000).astype(np.float32)
    got = np.array(mx.exp(mx.array(x))).astype(np.float64)
    exact = np.exp(x.astype(np.float64))
    rel = np.abs(got - exact) / exact
    print(f"exp: derived growth {slope:.6g} |x|; error beyond it at most {((rel - slope * np.abs(x)) / U).max():.3f} "
          f"u32 (declared 1 ulp: 2 u32); largest error {(rel / U).max():.2f} u32")
    lo, hi = int(np.float32(0).view(np.uint32)), int(np.float32(2 * math.pi).view(np.uint32))
    worst = 0.0
    for start in range(lo, hi + 1, 1 << 24):
        v = np.arange(start, min(start + (1 << 24), hi + 1), dtype=np.uint32).view(np.float32)
        a, vd = mx.array(v), v.astype(np.float64)
        worst = max(worst, np.abs(np.array(mx.sin(a)).astype(np.float64) - np.sin(vd)).max(),
                    np.abs(np.array(mx.cos(a)).astype(np.float64) - np.cos(vd)).max())
    print(f"sin/cos: every fp32 of [0, 2 pi]: largest error {worst:.5g}")
    rng = np.random.default_rng(2)
    for a0, a1 in [(2 * math.pi, 1e3), (1e3, 1e5), (1e5, 2.0**23), (2.0**23, 2.0**31)]:
        v = rng.uniform(a0, a1, 4_000_000).astype(np.float32)
        a, vd = mx.array(v), v.astype(np.float64)
        e = np.maximum(np.abs(np.array(mx.sin(a)).astype(np.float64) - np.sin(vd)),
                       np.abs(np.array(mx.cos(a)).astype(np.float64) - np.cos(vd)))
        print(f"sin/cos on [{a0:.4g}, {a1:.4g}]: largest error {e.max():.4g}, (error - {worst:.4g}) / |x| at most "
              f"{((e - worst) / vd).max():.3g}")


if __name__ == "__main__":
    main()
