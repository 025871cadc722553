# SPDX-License-Identifier: MIT
"""What a Python kernel declares (this file: _declare.py): its policy, its KV-cache write, and the one dict
check() and bench() hand the core."""
from __future__ import annotations

import dataclasses
from typing import Any, Optional, Sequence, Union

from ._vocabulary import FREQ_FORMS, MULTI_AXIS_FORMS, SUBNORMALS


@dataclasses.dataclass(frozen=True)
class Policy:
    """A named policy (one of POLICIES) with parts of its arithmetic stated, for check's ``policy``
    (docs/ERROR_MODEL.md derives each part's budget; docs/PYTHON.md, "Declaring the arithmetic"):

    - ``subnormals``: "kept" (IEEE gradual underflow) or "flushed" (FTZ/DAZ: JAX on CPU, CUDA -ftz=true);
    - ``freq_form``: "power" (``b^(-2i/d)`` via pow), "exp_log" (``exp(-i ln(b) / (d/2))``, MLX) or "table"
      (the exact frequencies, or their reciprocals, rounded once and inverted at most once);
    - ``freq_ulps``: pow / exp / log in the frequency formulas within this many ulps (None: the name's);
    - ``freq_exp_slope``: exp_log only, the exp's relative error per unit of |argument| beyond its ulps (an
      exp scaling its argument by a rounded 1/ln 2 first);
    - ``sincos_ulps``: a libm sin/cos within this many ulps (None: the name's);
    - ``fast_sincos``: (max abs error, range, phase slope) of an approximate sin/cos: the abs error holds for
      ``|x| <= range`` (0: everywhere), beyond it sin/cos of an argument off by up to ``slope |x|``.

    Bad values are refused by ValueError naming the field and its bound."""

    name: str
    subnormals: str = "kept"
    freq_form: str = "power"
    freq_ulps: Optional[float] = None
    freq_exp_slope: float = 0.0
    sincos_ulps: Optional[float] = None
    fast_sincos: Optional[tuple[float, float, float]] = None

    def __repr__(self) -> str:
        parts = [repr(self.name)]
        for f in dataclasses.fields(self)[1:]:
            v = getattr(self, f.name)
            if v != f.default:
                parts.append(f"{f.name}={v!r}")
        return f"ropecheck.Policy({', '.join(parts)})"

    def _as_dict(self) -> dict[str, Any]:
        if self.subnormals not in SUBNORMALS:
            raise ValueError(f"policy.subnormals: must be one of {', '.join(SUBNORMALS)} (got {self.subnormals!r})")
        if self.freq_form not in FREQ_FORMS:
            raise ValueError(f"policy.freq_form: must be one of {', '.join(FREQ_FORMS)} (got {self.freq_form!r})")
        return dict(name=self.name, subnormals=self.subnormals, freq_form=self.freq_form,
                    freq_ulps=None if self.freq_ulps is None else float(self.freq_ulps),
                    freq_exp_slope=float(self.freq_exp_slope),
                    sincos_ulps=None if self.sincos_ulps is None else float(self.sincos_ulps),
                    fast_sincos=None if self.fast_sincos is None else [float(v) for v in self.fast_sincos])


@dataclasses.dataclass(frozen=True)
class KvCacheWrite:
    """What a fused kernel's KV-cache write declares (check's ``fused``; ABI 1.4's kv_policy,
    docs/KERNEL_ABI.md): it is then called ``fn(q, k, positions, rope, kv)`` and, where ``kv`` is not
    None (every case with a k and at most 4096 tokens), writes the rotated k and the v of every token
    with a slot into ``kv.k_cache`` / ``kv.v_cache`` in place (a KvCacheCall), each ``round(x / scale)``
    (``scale_direction="divide"``, vLLM) or ``round(x * scale)`` (``"multiply"``, FlashInfer) in fp32,
    rounded to nearest even to the cache dtype, saturating or not; ``via_storage``: the k it scales is the
    k it returns (rounded to q's dtype), as vLLM's rotary_embedding then reshape_and_cache, or else the
    fp32 value before that rounding. The cache properties judge every code (E9, docs/ERROR_MODEL.md)."""

    cache_dtypes: Sequence[str] = ("f32", "f16", "bf16")
    scale_kinds: Sequence[str] = ("per_tensor", "per_head")
    scale_direction: str = "divide"
    saturate: bool = True
    via_storage: bool = True

    def __repr__(self) -> str:
        return (f"ropecheck.KvCacheWrite(cache_dtypes={list(self.cache_dtypes)!r}, "
                f"scale_kinds={list(self.scale_kinds)!r}, scale_direction={self.scale_direction!r}, "
                f"saturate={self.saturate!r}, via_storage={self.via_storage!r})")

    def _as_dict(self) -> dict[str, Any]:
        if isinstance(self.cache_dtypes, str) or isinstance(self.scale_kinds, str):
            raise TypeError("fused: cache_dtypes and scale_kinds are lists of names")
        return dict(cache_dtypes=list(self.cache_dtypes), scale_kinds=list(self.scale_kinds),
                    scale_direction=self.scale_direction, saturate=bool(self.saturate),
                    via_storage=bool(self.via_storage))


def _kernel_name(fn: Any, name: Optional[str]) -> str:
    raw = name or getattr(fn, "name", None) or getattr(fn, "__name__", None) or "python_kernel"
    clean = "".join(c if c.isalnum() or c == "_" else "_" for c in str(raw).lower()).strip("_")
    return (clean or "python_kernel")[:64]


def _declaration(*, layouts: Sequence[str], dtypes: Sequence[str], schemes: Optional[Sequence[str]],
                 policy: Union[str, Policy],
                 in_place: bool, inverse: bool, partial_rotary: bool, negative_positions: bool,
                 multi_axis: Union[bool, Sequence[str]], max_position: Optional[int], restrictions: Sequence[str],
                 tensors: str, device: str, fused: Optional[KvCacheWrite]) -> dict[str, Any]:
    """What a kernel declares, as the one dict check() and bench() hand the core (kernel_declaration.h)."""
    if not isinstance(policy, (str, Policy)):
        raise TypeError("policy: a name from ropecheck.POLICIES or a ropecheck.Policy")
    if max_position is not None and (isinstance(max_position, bool) or not isinstance(max_position, int)
                                     or max_position < 1):
        raise ValueError(f"max_position: must be an int >= 1 (got {max_position!r})")
    if isinstance(multi_axis, str):
        raise TypeError("multi_axis: True, False or a list of forms from ropecheck.MULTI_AXIS_FORMS")
    if fused is not None and not isinstance(fused, KvCacheWrite):
        raise TypeError("fused: a ropecheck.KvCacheWrite (or None)")
    return dict(layouts=list(layouts), dtypes=list(dtypes), schemes=list(schemes or []),
                policy=policy if isinstance(policy, str) else policy._as_dict(),
                in_place=bool(in_place), inverse=bool(inverse), partial_rotary=bool(partial_rotary),
                negative_positions=bool(negative_positions),
                multi_axis=list(MULTI_AXIS_FORMS) if multi_axis is True else list(multi_axis or []),
                max_position=max_position or 0, restrictions=list(restrictions), tensors=tensors, device=device,
                kv_write=fused._as_dict() if fused is not None else None)
