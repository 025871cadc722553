# SPDX-License-Identifier: MIT
"""Two numpy implementations of RoPE, as the frameworks write them, in the
arithmetic of a precision policy of the golden manifest:

- rotate_half (Hugging Face transformers): out = x * cos + rotate_half(x) * sin
  with cos/sin over cat(freqs, freqs): pairs (x[i], x[i + d/2]), the
  "half_split" layout;
- complex (Meta's llama reference): view adjacent channels as one complex
  number and multiply by polar(m, angle): pairs (x[2i], x[2i+1]), the
  "interleaved" layout.

Multi-axis cases (M-RoPE, axial RoPE: positions [num_axes, tokens] and
pair_axis [pairs]) change only the angle: angle[t, i] = positions[pair_axis[i],
t] * inv_freq[i], inv_freq holding each pair's own frequency; both forms then
apply unchanged.

A policy (manifest "policies") says in which dtype each step is rounded:
frequencies (freqDtype), the angle ("f64 product": p * w in float64; "f32
product": fl32(fl32(p) * w)), cos/sin (evaluated in float64 and rounded to the
angle's precision, within the declared 1 ulp: Python's math.cos, glibc's, since
NumPy 1.24's float64 sin/cos on AVX-512 (SVML) differ from it by up to 3 ulps;
then times the attention factor
and rounded to cosSinDtype) and the rotation (mathDtype, each product and the
sum rounded: rotation "separate"). Every value is held in a float64 array and
rounded explicitly after each operation, so the emulation does not depend on
numpy's own float32 kernels. The golden vectors state the layout per case; a
consumer that picks the other form has the layout-swap bug they catch.
"""
import math

import numpy as np

# (precision, emin, emax) of each storage dtype.
_FORMATS = {"f64": (53, -1022, 1023), "f32": (24, -126, 127), "f16": (11, -14, 15), "bf16": (8, -126, 127)}


def round_to(x, dtype):
    """Round float64 values to the nearest value of dtype (ties to even), as float64."""
    p, emin, emax = _FORMATS[dtype]
    if dtype == "f64":
        return np.array(x, dtype=np.float64, copy=True)
    x = np.asarray(x, dtype=np.float64)
    _, e = np.frexp(x)  # |x| in [2^(e-1), 2^e)
    q = np.maximum(e - 1, emin) - (p - 1)  # exponent of one ulp at x
    out = np.ldexp(np.round(np.ldexp(x, -q)), q)  # np.round: half to even
    max_finite = np.ldexp(2.0 - np.ldexp(1.0, 1 - p), emax)
    out = np.where(np.abs(out) > max_finite, np.copysign(np.inf, x), out)
    return np.where(x == 0, x, out)


EXACT = {"freqDtype": "f64", "angle": "f64 product", "mathDtype": "f64", "cosSinDtype": "f64",
         "rotation": "separate"}


def emulates(policy):
    """Whether these forms can compute in the policy's arithmetic (numpy has no fused multiply-add)."""
    return policy.get("rotation", "separate") == "separate" and policy.get("angle") in ("f64 product", "f32 product")


def _dtype(name, storage):
    return storage if name == "storage" else name


def _libm(f, a):
    return np.frompyfunc(f, 1, 1)(a).astype(np.float64)


def pair_positions(positions, pair_axis=None):
    """Positions [tokens] (1D) or [num_axes, tokens] with pair_axis [pairs] (multi-axis) as what multiplies
    each pair's frequency: [tokens, 1] (every pair at its token's position) or [tokens, pairs]."""
    positions = np.asarray(positions)
    if pair_axis is None:
        return positions[:, None]
    return positions[np.asarray(pair_axis), :].T


def cos_sin(positions, inv_freq, attention_factor, inverse, policy, storage, pair_axis=None):
    """cos and sin [tokens, pairs] (attention factor and direction folded in) as the policy forms them.
    angle[t, i] = p[t, i] * w_i with p = pair_positions(positions, pair_axis)."""
    w = round_to(inv_freq, policy["freqDtype"])
    p = pair_positions(positions, pair_axis).astype(np.float64)
    if policy["angle"] == "f32 product":
        a = round_to(round_to(p, "f32") * w[None, :], "f32")
        trig, m = "f32", round_to(attention_factor, "f32")
    else:
        a = p * w[None, :]
        trig, m = "f64", attention_factor
    c = round_to(round_to(_libm(math.cos, a), trig) * m, trig)
    s = round_to(round_to(_libm(math.sin, a), trig) * m, trig)
    cache = _dtype(policy["cosSinDtype"], storage)
    c, s = round_to(c, cache), round_to(s, cache)
    return c, (-s if inverse else s)


def _rotate_pairs(x, y, c, s, policy, storage):
    r = lambda v: round_to(v, _dtype(policy["mathDtype"], storage))  # noqa: E731
    return r(r(x * c) - r(y * s)), r(r(x * s) + r(y * c))


def rope_rotate_half(x, positions, inv_freq, attention_factor=1.0, inverse=False, policy=EXACT, storage="f64",
                     pair_axis=None):
    r = 2 * len(inv_freq)
    c, s = cos_sin(positions, inv_freq, attention_factor, inverse, policy, storage, pair_axis)  # [T, r/2]
    xr = x[..., :r]
    # x * cos + rotate_half(x) * sin, cos = cat(c, c): the two halves of the head are the pair.
    first, second = _rotate_pairs(xr[..., :r // 2], xr[..., r // 2:], c[:, None, :], s[:, None, :], policy, storage)
    out = x.copy()
    out[..., :r] = np.concatenate([first, second], axis=-1)
    return out


def rope_complex(x, positions, inv_freq, attention_factor=1.0, inverse=False, policy=EXACT, storage="f64",
                 pair_axis=None):
    r = 2 * len(inv_freq)
    t, h, _ = x.shape
    c, s = cos_sin(positions, inv_freq, attention_factor, inverse, policy, storage, pair_axis)
    pairs = x[..., :r].reshape(t, h, r // 2, 2)
    # (x0 + j x1) * (c + j s): the real and imaginary parts are the pair.
    re, im = _rotate_pairs(pairs[..., 0], pairs[..., 1], c[:, None, :], s[:, None, :], policy, storage)
    out = x.copy()
    out[..., :r] = np.stack([re, im], axis=-1).reshape(t, h, r)
    return out


def default_inv_freq(config, axes=None, pair_axis=None):
    """Frequencies of the schemes with a one-line closed form (None for the others). Multi-axis with
    per-axis frequencies (axes["frequencies"] == "per_axis", default and linear schemes): the j-th pair of
    an axis with n pairs has w_j over a rotary dim of 2n."""
    d, b, s = config["rotary_dim"], config["base"], config["factor"]
    if axes and axes["frequencies"] == "per_axis":
        if config["scheme"] not in ("default", "linear"):
            return None
        w = np.empty(d // 2)
        for axis in range(axes["numAxes"]):
            mine = np.flatnonzero(np.asarray(pair_axis) == axis)
            w[mine] = default_inv_freq(dict(config, rotary_dim=2 * len(mine)))
        return w
    i = np.arange(0, d, 2, dtype=np.float64) / d
    if config["scheme"] == "default":
        return 1.0 / b ** i
    if config["scheme"] == "linear":
        return 1.0 / b ** i / s
    if config["scheme"] == "ntk":
        return 1.0 / (b * s ** (d / (d - 2))) ** i
    return None
