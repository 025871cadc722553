# SPDX-License-Identifier: MIT
"""ropecheck: verify a RoPE kernel against the exact mathematics, from Python.

The same C++ core as the ``ropecheck`` command (docs/PYTHON.md):

    import ropecheck

    def my_rope(q, k, positions, rope):        # q: [tokens, q_heads, head_dim]
        ...                                     # rope.hf_config, rope.layout, ...
        return q_out, k_out

    result = ropecheck.check(my_rope, policy="f32_angle_product", layouts=["half_split"])
    assert result, result.failure_report()

A kernel is any callable ``fn(q, k, positions, rope) -> (q_out, k_out)``:
numpy arrays (or torch tensors with ``tensors="torch"``) of shape
[tokens, heads, head_dim], int64 positions [tokens], and a ``RopeCall``
describing the call (head_dim, rotary_dim, layout, direction, scheme, dtype,
seq_len, ``config`` in ropecheck's schema and ``hf_config`` as a Hugging Face
config.json states it). numpy has no bfloat16: bf16 data reaches a numpy
kernel widened exactly to float32 and its float32 result is rounded to bf16.
"""
from __future__ import annotations

import dataclasses
import json
import os
import random
import time
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence, Union

from . import _core


def _refuse_unreadable_numpy() -> None:
    """pybind11 reads numpy's array structs with its own definitions; before
    2.12 it knows only numpy 1's layout (pybind11 2.12.0 changelog: "NumPy 2.0
    support"), and numpy 2 arrays then reach the core as garbage without an
    error: every verdict would be wrong. Refused at import, naming the fix."""
    import numpy

    major = int(numpy.__version__.split(".")[0])
    built = tuple(_core.PYBIND11_VERSION)
    if major >= 2 and built[:2] < (2, 12):
        raise ImportError(
            f"ropecheck: this module was built with pybind11 {'.'.join(map(str, built))}, which reads numpy 2 "
            f"arrays wrongly, and numpy {numpy.__version__} is installed; use numpy < 2 (Debian's python3-numpy, "
            f"what the module is built for) or rebuild the module with pybind11 >= 2.12")


_refuse_unreadable_numpy()

__all__ = [
    "check", "policies", "fuzz", "reference", "config_from_hf", "builtin_kernel", "CheckResult", "Failure",
    "FuzzResult", "PolicyResult", "Policy", "Unsupported", "KernelContractError", "RopeCall", "RopeConfig",
    "POLICIES", "PROPERTIES", "SCHEMES", "LAYOUTS", "DTYPES", "MULTI_AXIS_FORMS", "RESTRICTIONS", "FREQ_FORMS",
    "SUBNORMALS", "KvCacheWrite", "KvCacheCall", "CACHE_DTYPES",
]

KernelContractError = _core.KernelContractError
#: Raised by a kernel to decline one case (``raise ropecheck.Unsupported("why")``): the case is skipped for
#: every property that called it and counted by the reason (``CheckResult.skipped``), never failed. The reason is
#: a category ("position beyond int32"), so the skip table counts like cases together. A kernel declining every
#: case fails on the verdict floor: it cannot decline its way to a pass.
Unsupported = _core.Unsupported
RopeCall = _core.RopeCall
RopeConfig = _core.RopeConfig
BuiltinKernel = _core.BuiltinKernel
KvCacheCall = _core.KvCacheCall

#: Named precision policies (docs/ERROR_MODEL.md); a kernel is judged by the budget of the one it declares.
POLICIES: tuple[str, ...] = tuple(_core.policy_names())
#: The kernel properties the gate runs, in report order (docs/PROPERTIES.md).
PROPERTIES: tuple[str, ...] = tuple(_core.property_names())
#: Frequency schemes: the case families of the gate's tables.
SCHEMES: tuple[str, ...] = ("default", "linear", "ntk", "dynamic_ntk", "yarn", "llama3", "longrope", "explicit")
LAYOUTS: tuple[str, ...] = ("interleaved", "half_split")
DTYPES: tuple[str, ...] = ("f32", "f16", "bf16")
#: Multi-axis forms a kernel may take (check's ``multi_axis``): which axis each pair rotates with
#: (M-RoPE sections, Qwen3-VL's interleaving, a per-pair table) and per-axis frequencies on top of them.
MULTI_AXIS_FORMS: tuple[str, ...] = ("sections", "interleaved", "table", "per_axis")
#: Scheme parameters a kernel may decline (check's ``restrictions``; ABI 1.1's restricting flags): YaRN only with
#: truncate, no explicit attention_factor, no runtime sequence length (dynamic NTK and LongRoPE within L).
RESTRICTIONS: tuple[str, ...] = ("yarn_truncated_only", "no_explicit_attention_factor", "no_runtime_seq_len",
                                 "no_yarn_mscale")
#: How a kernel forms its frequencies (Policy's ``freq_form``, ABI 1.7): ``b^(-2i/d)`` through pow, MLX's
#: ``exp(-i ln(b) / (d/2))``, or a table of the exact values (docs/ERROR_MODEL.md, "The frequency's form").
FREQ_FORMS: tuple[str, ...] = ("power", "exp_log", "table")
#: What a kernel does with subnormal values (Policy's ``subnormals``, ABI 1.7): gradual underflow, or flushed to
#: zero on input and output (FTZ/DAZ: XLA on CPU, CUDA with -ftz=true).
SUBNORMALS: tuple[str, ...] = ("kept", "flushed")

#: The dtypes a fused kernel's KV cache may be stored in (KvCacheWrite's ``cache_dtypes``).
CACHE_DTYPES: tuple[str, ...] = ("f32", "f16", "bf16", "fp8_e4m3fn", "fp8_e5m2")

Kernel = Callable[..., Any]


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


@dataclasses.dataclass(frozen=True)
class Failure:
    """One failing (case, property) with the line that reproduces exactly it."""

    case: int
    property: str
    family: str
    message: str
    description: str
    reproduce: str
    cli_reproduce: str

    def __str__(self) -> str:
        return (f"FAIL {self.property} case {self.case} ({self.family}): {self.message}\n"
                f"  case: {self.description}\n  reproduce: {self.reproduce}")


@dataclasses.dataclass(frozen=True)
class CheckResult:
    """The gate's verdict on one kernel: the same tables the CLI prints."""

    passed: bool
    suite: str
    seed: int
    cases: int
    seconds: float
    tables: str
    families: dict[str, dict[str, Any]]
    properties: dict[str, dict[str, Any]]
    failures: list[Failure]
    #: Tracebacks of the calls in which the kernel raised (each is also a failing case).
    errors: list[str]
    #: (property, why) for each property judged on fewer cases than the verdict floor: the verdict
    #: fails with no failing case (a kernel declaring so little that the suite's cases cannot reach it).
    under_floor: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    #: Cases drawn outside the kernel's declaration (dtypes, layouts, schemes, position ranges...) and redrawn within it.
    redrawn: int = 0
    #: Conformance per position range ("<2^10", "2^10..2^16", "2^16..2^20", ">=2^20"): the elements judged,
    #: the worst error in budget units and in ulps of the storage dtype.
    position_ranges: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    #: Conformance cases skipped, by reason: "outside capabilities: ..." (what the kernel declares) and
    #: "declined by the kernel: ..." (a ropecheck.Unsupported it raised).
    skipped: dict[str, int] = dataclasses.field(default_factory=dict)
    #: The declared policy in one line, as ``ropecheck list`` prints it.
    policy: str = ""

    def __bool__(self) -> bool:
        return self.passed

    def failure_report(self, limit: int = 10) -> str:
        """The failing cases with their reproduce lines (worst first is not implied: case order)."""
        if self.passed:
            return "ropecheck: every case passed"
        lines = [f"FAIL {prop}: {why}" for prop, why in self.under_floor]
        lines += [str(f) for f in self.failures[:limit]]
        if len(self.failures) > limit:
            lines.append(f"... {len(self.failures) - limit} more failure(s)")
        if self.errors:
            lines.append("first traceback from the kernel:\n" + self.errors[0])
        return "\n".join(lines)

    def raise_for_failure(self) -> None:
        """AssertionError with the failure report when any case failed."""
        if not self.passed:
            raise AssertionError(self.failure_report())


def _kernel_name(fn: Any, name: Optional[str]) -> str:
    raw = name or getattr(fn, "name", None) or getattr(fn, "__name__", None) or "python_kernel"
    clean = "".join(c if c.isalnum() or c == "_" else "_" for c in str(raw).lower()).strip("_")
    return (clean or "python_kernel")[:64]


def _python_reproduce(name: str, options: Mapping[str, Any], case: int, prop: str) -> str:
    shown = {k: v for k, v in options.items() if k not in ("case", "properties", "cases")}
    args = ", ".join(f"{k}={v!r}" for k, v in shown.items())
    return f"ropecheck.check({name}, {args}, case={case}, properties=[{prop!r}])"


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


def check(fn: Kernel, *, name: Optional[str] = None, layouts: Sequence[str] = ("half_split",),
          dtypes: Sequence[str] = ("f32",), schemes: Optional[Sequence[str]] = None,
          policy: Union[str, Policy] = "f32_angle_product", suite: str = "quick", seed: int = 1,
          cases: Optional[int] = None,
          case: Optional[int] = None, properties: Optional[Sequence[str]] = None, in_place: bool = False,
          inverse: bool = False, partial_rotary: bool = True, negative_positions: bool = False,
          multi_axis: Union[bool, Sequence[str]] = False, max_position: Optional[int] = None,
          restrictions: Sequence[str] = (), tensors: str = "numpy", device: str = "cpu", redraw: bool = True,
          redraw_schemes: Optional[bool] = None, fused: Optional[KvCacheWrite] = None) -> CheckResult:
    """Run the gate (every kernel property over a suite) on a Python kernel.

    The kernel declares what it supports (``layouts``, ``dtypes``, ``schemes``,
    ``inverse``, ``partial_rotary``, ``negative_positions``; ``multi_axis``:
    positions ``[rope.num_axes, tokens]`` with M-RoPE / axial assignments,
    see RopeCall: True for every form, or the forms it takes among
    ``MULTI_AXIS_FORMS``; ``max_position``: positions p with |p| >= it are
    outside, a cos/sin cache of that many rows; ``restrictions``: scheme
    parameters it does not take, among ``RESTRICTIONS``) and how it
    computes (``policy``, one of POLICIES, or a ``Policy`` stating parts of its arithmetic beyond the
    name's). A kernel declines a case it cannot take by raising ``Unsupported("why")``: skipped, counted
    by reason in ``CheckResult.skipped``. A case the suite draws in a
    dtype, layout, scheme, direction or placement the kernel does not
    declare is redrawn within its declaration (``redraw``; ``redraw_schemes``
    for the scheme alone, default ``redraw``), so a bf16-only kernel gets the
    suite's full count of cases; what no redraw can reach (a head_dim past
    its bound, multi-axis positions) is skipped and counted. Every judged case
    is judged per element against the budget of its policy. ``in_place=True``: the kernel rotates its q and
    k arguments and returns None. ``tensors="torch"`` hands it torch tensors on
    ``device``. ``case`` runs one case of the suite (what a reproduce line
    does). A built-in kernel (``builtin_kernel(name)``) declares its own.
    ``fused=KvCacheWrite(...)``: the kernel also writes k and v into a paged
    KV cache, and is called ``fn(q, k, positions, rope, kv)`` (see
    KvCacheWrite and KvCacheCall); the cache properties judge the write.

    Raises KernelContractError (a TypeError) when the kernel returns the
    wrong shape, dtype or number of results, ValueError for a bad option.
    """
    kname = _kernel_name(fn, name)
    declaration = _declaration(layouts=layouts, dtypes=dtypes, schemes=schemes, policy=policy, in_place=in_place,
                               inverse=inverse, partial_rotary=partial_rotary,
                               negative_positions=negative_positions, multi_axis=multi_axis,
                               max_position=max_position, restrictions=restrictions, tensors=tensors,
                               device=device, fused=fused)
    options = dict(layouts=list(layouts), dtypes=list(dtypes), schemes=list(schemes or []), policy=policy,
                   suite=suite, seed=int(seed), cases=cases, case=case, properties=list(properties or []),
                   in_place=in_place, inverse=inverse, partial_rotary=partial_rotary,
                   negative_positions=negative_positions, multi_axis=multi_axis, max_position=max_position,
                   restrictions=list(restrictions), tensors=tensors, device=device, redraw=bool(redraw),
                   redraw_schemes=bool(redraw if redraw_schemes is None else redraw_schemes), fused=fused)
    r = _core.check(fn, name=kname, declaration=declaration, suite=suite, seed=int(seed), cases=cases, case=case,
                    properties=list(properties or []), redraw=options["redraw"],
                    redraw_schemes=options["redraw_schemes"])
    shown = {k: v for k, v in options.items()
             if v not in (None, []) and not (k in ("tensors", "device") and v in ("numpy", "cpu"))
             and not (k == "redraw" and v is True) and not (k == "redraw_schemes" and v == options["redraw"])}
    failures = [Failure(case=f["case"], property=f["property"], family=f["family"], message=f["message"],
                        description=f["description"],
                        reproduce=_python_reproduce(getattr(fn, "__name__", kname), shown, f["case"], f["property"]),
                        cli_reproduce=f["cli_reproduce"]) for f in r["failures"]]
    return CheckResult(passed=r["passed"], suite=r["suite"], seed=r["seed"], cases=r["cases"], seconds=r["seconds"],
                       tables=r["tables"], families=r["families"], properties=r["properties"], failures=failures,
                       errors=list(r["errors"]), under_floor=[tuple(x) for x in r["under_floor"]],
                       redrawn=int(r["redrawn"]), position_ranges=dict(r["position_ranges"]),
                       skipped=dict(r["skipped"]), policy=str(r["policy"]))


@dataclasses.dataclass(frozen=True)
class PolicyResult:
    """One policy's verdict on a kernel (``policies``): the kernel's worst conformance error in that policy's
    budget units (pass <= 1), the cases judged, and why the policy could not be tried, if so."""

    policy: str
    passed: Optional[bool]
    worst_budget_units: Optional[float]
    judged: int
    failed: int
    why_not: str = ""
    #: The mean error / budget over every element judged: how much of this policy's budgets the kernel fills.
    mean_budget_units: Optional[float] = None


class PolicyTable(list):
    """``policies``' rows, in catalogue order, with ``declare``: the policy to declare (see ``policies``)."""

    declare: Optional[str] = None

    def __str__(self) -> str:
        lines = ["| policy | verdict | judged | failed | worst error / budget | mean error / budget |",
                 "|---|---|---:|---:|---:|---:|"]
        for r in self:
            verdict = ("not tried: " + r.why_not) if r.passed is None else ("pass" if r.passed else "FAIL")
            if r.policy == self.declare:
                verdict += " (declare this one)"
            worst = "-" if r.worst_budget_units is None else f"{r.worst_budget_units:.4g}"
            mean = "-" if r.mean_budget_units is None else f"{r.mean_budget_units:.4g}"
            lines.append(f"| {r.policy} | {verdict} | {r.judged} | {r.failed} | {worst} | {mean} |")
        return "\n".join(lines)


def policies(fn: Kernel, *, policies: Optional[Sequence[Union[str, Policy]]] = None, **options: Any) -> PolicyTable:
    """Run ``fn`` under every catalogue policy (POLICIES, or the ``policies`` given) and return, per
    policy, pass or fail and the worst conformance error in that policy's budget units: which arithmetic the
    code matches. ``options`` are check()'s (its declaration, suite, seed, cases), ``policy`` and
    ``properties`` excepted: conformance alone is judged.

    The one to declare is the tightest passing policy (``PolicyTable.declare``): among the policies that
    pass, the one whose budgets the kernel's errors fill the most on average (the largest mean error /
    budget over every element judged; the worst element of each policy fills its own budget nearly whole,
    so the worst does not tell them apart), the earlier in catalogue order on a tie. A
    looser policy passes too, but its budgets are wider than the kernel's arithmetic needs, and a real bug
    (a rounding more, a wrong frequency by a few ulps) hides inside the slack; the tightest passing one
    leaves the least room for that (docs/PYTHON.md, "Which policy to declare")."""
    if "policy" in options or "properties" in options:
        raise TypeError("policies: policy and properties are what it varies; pass the rest of check()'s options")
    rows = PolicyTable()
    for p in (policies if policies is not None else POLICIES):
        label = p if isinstance(p, str) else repr(p)
        try:
            r = check(fn, policy=p, properties=["ConformsToReference"], **options)
        except ValueError as e:  # a policy the declaration cannot take (bf16 math on fp32 inputs, ...)
            rows.append(PolicyResult(label, None, None, 0, 0, str(e)))
            continue
        fam = [f for f in r.families.values() if f["cases"] > f["skipped"]]
        judged = sum(f["cases"] - f["skipped"] for f in fam)
        failed = sum(f["failed"] for f in fam)
        worst = max((f["worst_budget_units"] for f in fam), default=None)
        elements = sum(f["elements"] for f in fam)
        mean = sum(f["sum_budget_units"] for f in fam) / elements if elements else None
        rows.append(PolicyResult(label, r.passed, worst, judged, failed,
                                 "" if judged else "no case judged: " + "; ".join(r.skipped), mean))
    passing = [r for r in rows if r.passed and r.mean_budget_units is not None]
    # max keeps the first of equal keys: the catalogue lists the tighter policy first
    rows.declare = max(passing, key=lambda r: r.mean_budget_units).policy if passing else None
    return rows


def builtin_kernel(name: str) -> BuiltinKernel:
    """A built-in implementation (``ropecheck list``) as a Python kernel."""
    return _core.BuiltinKernel(name)


def config_from_hf(config: Union[Mapping[str, Any], str, os.PathLike]) -> RopeConfig:
    """A rope config from a Hugging Face config.json (a dict, a path, or JSON text), its rope_scaling /
    rope_parameters dict, or ropecheck's own schema: the same reading as ``ropecheck check --config``.
    Raises ValueError naming the field and the bound."""
    return _core.parse_config(_config_text(config))


def _config_text(config: Union[Mapping[str, Any], str, os.PathLike]) -> str:
    """A config as JSON text: a dict, JSON text, or the path of a file of at most 1 MiB."""
    if isinstance(config, Mapping):
        return json.dumps(dict(config))
    s = os.fspath(config)
    if s.lstrip().startswith("{"):
        return s
    with open(s, "rb") as f:
        data = f.read((1 << 20) + 1)
    if len(data) > 1 << 20:
        raise ValueError(f"{s}: a config must be at most {1 << 20} bytes")
    return data.decode("utf-8", errors="strict")


def _as_numpy(x: Any) -> tuple[Any, Optional[str]]:
    import numpy as np
    if hasattr(x, "detach"):  # a torch tensor
        t = x.detach().cpu()
        name = str(t.dtype)
        if name == "torch.bfloat16":
            return t.float().numpy(), "bf16"
        return t.numpy(), {"torch.float32": "f32", "torch.float16": "f16", "torch.float64": "f64"}.get(name)
    a = np.asarray(x)
    return a, {"float32": "f32", "float16": "f16", "float64": "f64"}.get(str(a.dtype))


def reference(q: Any, k: Any, positions: Any, config: Union[RopeConfig, Mapping[str, Any]], *,
              layout: Optional[str] = None, dtype: Optional[str] = None, direction: str = "forward",
              policy: Optional[str] = None) -> dict[str, Any]:
    """The exact rotation of q, k ([tokens, heads, head_dim]) at ``positions``.

    Returns ``q``/``k`` correctly rounded to ``dtype`` (inferred from q; bf16
    as float32 holding bf16 values), ``q_f64``/``k_f64`` (the exact result
    rounded to float64), ``inv_freq``, ``attention_factor`` and, with a
    ``policy`` (one of POLICIES), ``q_budget``/``k_budget``: the allowed
    |result - q_f64| per element of a kernel with that policy (0 on
    pass-through channels, which must be bit-identical). Inputs are rounded
    to ``dtype`` first.
    """
    cfg = config if isinstance(config, RopeConfig) else config_from_hf(config)
    qa, qd = _as_numpy(q)
    ka, _ = _as_numpy(k)
    pa, _ = _as_numpy(positions)
    dt = dtype or qd
    if dt is None:
        raise ValueError("dtype: cannot be inferred from q's dtype; pass one of f32, f16, bf16, f64")
    lay = layout or cfg.layout or "half_split"
    return _core.reference(qa, ka, pa, cfg, layout=lay, dtype=dt, direction=direction, policy=policy)


@dataclasses.dataclass(frozen=True)
class FuzzResult:
    """What a fuzzing run found: nothing, or the first failing case (saved under ``path``)."""

    executions: int
    seconds: float
    failure: Optional[Failure]
    path: Optional[str]

    def __bool__(self) -> bool:
        return self.failure is None


def fuzz(fn: Kernel, *, seconds: float = 60.0, seed: Optional[int] = None, out: Optional[str] = None,
         **options: Any) -> FuzzResult:
    """Search for a failing case within ``seconds``: cases of the exhaustive suite's generator (positions to
    int32 max and below zero, every scheme, layout, dtype) under random seeds, every property, until the first
    failure. The Python module is built without libFuzzer, so this is the seeded random search; the
    coverage-guided fuzzer for C-ABI kernels is ``ropecheck fuzz``. The failing case is written as JSON
    (suite, seed, case, property, message, reproduce) to ``out`` (default ``ropecheck-fuzz-<name>``).
    ``options`` are check()'s."""
    if not (seconds > 0):
        raise ValueError("seconds: must be > 0")
    rng = random.Random(seed)
    name = _kernel_name(fn, options.get("name"))
    deadline = time.monotonic() + seconds
    t0 = time.monotonic()
    executions = 0
    while time.monotonic() < deadline:
        run_seed = rng.getrandbits(63)
        for index in range(0, 4000):
            if time.monotonic() >= deadline:
                break
            r = check(fn, suite="exhaustive", seed=run_seed, case=index, **options)
            executions += 1
            if not r.passed:
                f = r.failures[0] if r.failures else None
                directory = out or f"ropecheck-fuzz-{name}"
                os.makedirs(directory, exist_ok=True)
                path = os.path.join(directory, f"failure-seed{run_seed}-case{index}.json")
                record = {"suite": "exhaustive", "seed": run_seed, "case": index,
                          "property": f.property if f else None, "message": f.message if f else r.tables,
                          "description": f.description if f else "", "reproduce": f.reproduce if f else ""}
                tmp = path + ".tmp"
                with open(tmp, "w", encoding="utf-8") as fh:
                    json.dump(record, fh, indent=2)
                os.replace(tmp, path)
                return FuzzResult(executions, time.monotonic() - t0, f, path)
    return FuzzResult(executions, time.monotonic() - t0, None, None)


# Speed (ropecheck bench's engine), in its own file; imported last, as it uses
# the declaration helpers above.
from .speed import BenchResult, bench  # noqa: E402
