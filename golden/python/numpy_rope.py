"""Two numpy implementations of RoPE in float64, as the frameworks write them:

- rotate_half (Hugging Face transformers): out = x * cos + rotate_half(x) * sin
  with cos/sin over cat(freqs, freqs): pairs (x[i], x[i + d/2]), the
  "half_split" layout;
- complex (Meta's llama reference): view adjacent channels as one complex
  number and multiply by polar(1, angle): pairs (x[2i], x[2i+1]), the
  "interleaved" layout.

The golden vectors state the layout per case; a consumer that picks the other
form has the layout-swap bug the vectors are built to catch.
"""
import numpy as np

# (precision, emin, emax) of each storage dtype.
_FORMATS = {"f64": (53, -1022, 1023), "f32": (24, -126, 127), "f16": (11, -14, 15), "bf16": (8, -126, 127)}


def angles(positions, inv_freq, inverse):
    a = positions.astype(np.float64)[:, None] * inv_freq[None, :]
    return -a if inverse else a


def rope_rotate_half(x, positions, inv_freq, attention_factor=1.0, inverse=False):
    r = 2 * len(inv_freq)
    emb = np.concatenate([angles(positions, inv_freq, inverse)] * 2, axis=-1)  # [T, r]
    cos = (np.cos(emb) * attention_factor)[:, None, :]
    sin = (np.sin(emb) * attention_factor)[:, None, :]
    xr = x[..., :r]
    rotated = np.concatenate([-xr[..., r // 2:], xr[..., :r // 2]], axis=-1)
    out = x.copy()
    out[..., :r] = xr * cos + rotated * sin
    return out


def rope_complex(x, positions, inv_freq, attention_factor=1.0, inverse=False):
    r = 2 * len(inv_freq)
    t, h, _ = x.shape
    freqs_cis = attention_factor * np.exp(1j * angles(positions, inv_freq, inverse))  # [T, r/2]
    pairs = x[..., :r].reshape(t, h, r // 2, 2)
    y = (pairs[..., 0] + 1j * pairs[..., 1]) * freqs_cis[:, None, :]
    out = x.copy()
    out[..., :r] = np.stack([y.real, y.imag], axis=-1).reshape(t, h, r)
    return out


def round_to(x, dtype):
    """Round float64 values to the nearest value of dtype (ties to even), as float64."""
    p, emin, emax = _FORMATS[dtype]
    if dtype == "f64":
        return x.copy()
    _, e = np.frexp(x)  # |x| in [2^(e-1), 2^e)
    q = np.maximum(e - 1, emin) - (p - 1)  # exponent of one ulp at x
    out = np.ldexp(np.round(np.ldexp(x, -q)), q)  # np.round: half to even
    max_finite = np.ldexp(2.0 - np.ldexp(1.0, 1 - p), emax)
    out = np.where(np.abs(out) > max_finite, np.copysign(np.inf, x), out)
    return np.where(x == 0, x, out)


def default_inv_freq(config):
    """Frequencies of the schemes with a one-line closed form (None for the others)."""
    d, b, s = config["rotary_dim"], config["base"], config["factor"]
    i = np.arange(0, d, 2, dtype=np.float64) / d
    if config["scheme"] == "default":
        return 1.0 / b ** i
    if config["scheme"] == "linear":
        return 1.0 / b ** i / s
    if config["scheme"] == "ntk":
        return 1.0 / (b * s ** (d / (d - 2))) ** i
    return None
