#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks a whole golden export against its contract from the files and the
documented schema alone: Python's standard library and numpy, no ropecheck
module and no compiled code, as a consumer in another language would.

    python3 check_contract.py DIR [--widen F] [--quiet]

It verifies SHA256SUMS and every file's size and SHA-256 in manifest.json,
reads each case's tensors in whichever format the export is (safetensors:
u64 header size, JSON header, buffer; npy; ropecheck-hex-json), and for every
policy of the manifest requires

  - valid: q_expected and k_expected (the exact result correctly rounded)
    meet the budget, |out - <w>_expected_f64| <= <w>_budget_<policy> per
    element (0 on pass-through channels: equal);
  - invalid (schema 3, a case's "outputs"): fails it: some element is over
    budget or not finite;
  - acceptable: meets it exactly for the policies of allowedBy, fails the
    others;

and each output's worstUnits to be max |out - expected_f64| / budget as
recomputed here (infinity for a non-finite output or any difference where
the budget is 0). A fused case (schema 4, "kvWrite": RoPE fused with a
paged KV-cache write) adds its caches: an output meets a policy's budget
only when, besides q and k, every element its tokens write into the caches
(k_cache_index, v_cache_index) holds a code whose ordinal lies in
[<w>_cache_lo, <w>_cache_hi] and every other element keeps the bits of the
cache before the call; cacheSteps is the most codes any written element
lies outside (infinity for a changed unwritten element, or a NaN written
into a 16- or 32-bit cache). Schema 5 adds a case's fused inputs, each
checked against the manifest: a qk-norm's weights (q_norm_weight,
k_norm_weight: [head_dim], finite; such a case's expected values are the
normalised values rotated, compared as every case's), and the caller's
cos/sin cache (cos_sin_cache [rows, rotary_dim], rows the largest position
+ 1: the row of each position holds attention_factor * cos then * sin of
the case's exact angles, each within half an ulp of its dtype; every other
row NaN). Exit 0 when every check holds, 1 otherwise, 2 when the export
cannot be read (the message names the file and field).

--widen F plays a consumer that multiplies every budget by F: it still
requires the valid outputs to pass, and reports each output it then accepts
under a policy that must reject it (invalid outputs first, then acceptable
ones under the policies outside their allowedBy): exit 1 when there is one.
A cache's admissible codes [lo, hi] widen to [lo - m, hi + m] with m =
floor((F - 1) (hi - lo + 1) / 2): F times as many codes.
That wrong outputs pass a tenfold budget is what shows the budgets are
tight.
"""
import argparse
import hashlib
import json
import math
import os
import struct
import sys

import numpy as np

SCHEMA_VERSIONS = (1, 2, 3, 4, 5)  # the manifest versions this reader knows
_NUMPY = {"f64": "<f8", "f32": "<f4", "f16": "<f2", "bf16": "<u2", "i64": "<i8", "u8": "|u1"}
_SAFETENSORS = {"F64": "f64", "F32": "f32", "F16": "f16", "BF16": "bf16", "I64": "i64", "U8": "u8"}
# A KV cache's sign bit per cache dtype (its codes are sign-magnitude).
_CACHE_SIGN = {"f32": 1 << 31, "f16": 1 << 15, "bf16": 1 << 15, "fp8_e4m3fn": 1 << 7, "fp8_e5m2": 1 << 7}


class ExportError(Exception):
    """The export cannot be read: names the file and the field."""


def _read(directory, relative):
    path = os.path.join(directory, relative)
    if not os.path.isfile(path) or os.path.islink(path):
        raise ExportError(f"{path}: not a regular file of the export")
    with open(path, "rb") as f:
        return f.read()


def _to_f64(raw, dtype):
    """Stored values as exact float64 (bf16 is stored as its uint16 bits)."""
    if dtype == "bf16":
        return (raw.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return raw if dtype in ("i64", "u8") else raw.astype(np.float64)


def _safetensors(data, path):
    if len(data) < 8:
        raise ExportError(f"{path}: header size: file shorter than 8 bytes")
    (n,) = struct.unpack("<Q", data[:8])
    if n > len(data) - 8:
        raise ExportError(f"{path}: header size: {n} exceeds the file")
    header = json.loads(data[8:8 + n])
    buffer = data[8 + n:]
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        dtype = _SAFETENSORS.get(e.get("dtype"))
        begin, end = e["data_offsets"]
        if dtype is None or not 0 <= begin <= end <= len(buffer):
            raise ExportError(f"{path}: tensor '{name}': bad dtype or data_offsets")
        raw = np.frombuffer(buffer[begin:end], dtype=_NUMPY[dtype]).reshape(e["shape"])
        out[name] = _to_f64(raw, dtype)
    return out


def _hex_json(data, path):
    doc = json.loads(data)
    if doc.get("format") != "ropecheck-hex-json" or doc.get("version") != 1:
        raise ExportError(f"{path}: format: must be ropecheck-hex-json version 1")
    out = {}
    for t in doc["tensors"]:
        if t["dtype"] in ("i64", "u8"):
            values = np.array(t["values"], dtype=np.int64 if t["dtype"] == "i64" else np.uint8)
        else:  # C99 hex floats, "inf", "-inf", "nan": float.fromhex reads them all
            values = np.array([float.fromhex(v) for v in t["values"]], dtype=np.float64)
        out[t["name"]] = values.reshape(t["shape"])
    return out


def _npy(data, path, case):
    import io

    raw = np.load(io.BytesIO(data), allow_pickle=False)
    # bf16 has no numpy dtype: '<u2' holds its bits, and only a tensor in the
    # case dtype (an input or an output) or in a bf16 KV cache can be one.
    if raw.dtype == np.uint16:
        if "bf16" not in (case["dtype"], case.get("kvWrite", {}).get("cacheDtype")):
            raise ExportError(f"{path}: descr: '<u2' in a {case['dtype']} case")
        return _to_f64(raw, "bf16")
    return raw if raw.dtype in (np.int64, np.uint8) else raw.astype(np.float64)


def load_manifest(directory):
    """manifest.json, after SHA256SUMS (required) has checked it."""
    sums = _read(directory, "SHA256SUMS").decode()
    manifest = _read(directory, "manifest.json")
    listed = [line[:64] for line in sums.splitlines() if line[66:] == "manifest.json"]
    if listed != [hashlib.sha256(manifest).hexdigest()]:
        raise ExportError(f"{directory}/manifest.json: sha256: not the one SHA256SUMS lists once")
    m = json.loads(manifest)
    version = m.get("schemaVersion")
    if version not in SCHEMA_VERSIONS:
        raise ExportError(f"{directory}/manifest.json: schemaVersion: {version!r}; this reader knows versions "
                          f"{', '.join(map(str, SCHEMA_VERSIONS))}")
    if m.get("schema") != f"ropecheck_golden_manifest_v{version}.schema.json":
        raise ExportError(f"{directory}/manifest.json: schema: does not name version {version}")
    if not m.get("cases"):
        raise ExportError(f"{directory}/manifest.json: cases: lists no case")
    return m


def load_case(directory, manifest, case):
    """Every tensor of a case as float64 (int64 for positions and pair_axis), files checked first."""
    tensors = {}
    for f in case["files"]:
        data = _read(directory, f["path"])
        path = os.path.join(directory, f["path"])
        if len(data) != f["bytes"] or hashlib.sha256(data).hexdigest() != f["sha256"]:
            raise ExportError(f"{path}: sha256: the file is not the one the manifest lists")
        if manifest["format"] == "safetensors":
            tensors.update(_safetensors(data, path))
        elif manifest["format"] == "json":
            tensors.update(_hex_json(data, path))
        else:
            tensors[os.path.splitext(os.path.basename(f["path"]))[0]] = _npy(data, path, case)
    return tensors


def measure(out, exact, budget):
    """(worst |out - exact| / budget, whether every element meets its budget), as the manifest defines them."""
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        err = np.abs(out - exact)
        units = np.where(budget > 0, err / np.where(budget > 0, budget, 1.0), np.where(err == 0, 0.0, np.inf))
    units = np.where(np.isfinite(out) & np.isfinite(err), units, np.inf)
    within = bool(np.all(np.isfinite(out) & (err <= budget)))
    return float(np.max(units, initial=0.0)), within


def measure_output(t, q, k, policy, widen=1.0):
    worst, within = 0.0, True
    for w, out in (("q", t[q]), ("k", t[k])):
        u, ok = measure(out, t[f"{w}_expected_f64"], t[f"{w}_budget_{policy}"] * widen)
        worst, within = max(worst, u), within and ok
    return worst, within


def _codes(values, cache_dtype):
    """A cache tensor's codes (fp8 is stored as its codes; the others as values, exact in float64)."""
    if cache_dtype.startswith("fp8"):
        return values.astype(np.int64)
    if cache_dtype == "f32":
        return values.astype(np.float32).view(np.uint32).astype(np.int64)
    if cache_dtype == "f16":
        return values.astype(np.float16).view(np.uint16).astype(np.int64)
    return (values.astype(np.float32).view(np.uint32) >> 16).astype(np.int64)  # bf16


def _ordinal(codes, cache_dtype):
    """A code's place on the number line: its magnitude bits, negated when the sign bit is set."""
    sign = _CACHE_SIGN[cache_dtype]
    magnitude = codes & (sign - 1)
    return np.where(codes & sign, -magnitude, magnitude)


def measure_caches(t, case, k_cache, v_cache, policy, widen=1.0):
    """(most codes any written element lies outside its admissible ones, whether that is 0) for a fused case."""
    kv = case["kvWrite"]
    dtype = kv["cacheDtype"]
    caches = {"k": (t[k_cache], t["k_cache_before"])}
    if v_cache is not None:
        caches["v"] = (t[v_cache], t["v_cache_before"])
    written = {w: np.zeros(out.size, dtype=bool) for w, (out, _) in caches.items()}
    steps = 0.0
    for w, lo, hi in (("k", t[f"k_cache_lo_{policy}"], t[f"k_cache_hi_{policy}"]), ("v", t["v_cache_lo"], t["v_cache_hi"])):
        cache = "k" if w == "k" or kv["cacheKind"] == "mla_joint" else "v"
        index = t[f"{w}_cache_index"].astype(np.int64).ravel()
        at = index >= 0
        where = index[at]
        values = caches[cache][0].ravel()[where]
        written[cache][where] = True
        lo, hi = lo.astype(np.int64).ravel()[at], hi.astype(np.int64).ravel()[at]
        margin = np.floor((widen - 1.0) * (hi - lo + 1) / 2.0).astype(np.int64)
        o = _ordinal(_codes(values, dtype), dtype)
        out = np.maximum(lo - margin - o, 0) + np.maximum(o - hi - margin, 0)
        nan = np.isnan(values) if not dtype.startswith("fp8") else np.zeros(values.shape, dtype=bool)
        steps = max(steps, float(np.max(np.where(nan, np.inf, out.astype(np.float64)), initial=0.0)))
    for w, (out, before) in caches.items():
        changed = _codes(out.ravel(), dtype) != _codes(before.ravel(), dtype)
        if np.any(changed & ~written[w]):
            steps = math.inf
    return steps, steps == 0


# Significand bits and the smallest normal exponent of the caller's cache dtypes.
_FLOAT_FORMAT = {"f32": (24, -126), "f16": (11, -14), "bf16": (8, -126)}


def half_ulp(x, dtype):
    """Half an ulp of |x| in dtype (at the subnormal spacing below the normal range)."""
    p, emin = _FLOAT_FORMAT[dtype]
    with np.errstate(divide="ignore"):
        e = np.maximum(np.floor(np.log2(np.abs(x))), emin)
    return np.ldexp(0.5, (e - (p - 1)).astype(np.int64))


def check_inputs(t, case):
    """Problems of a case's fused inputs (schema 5) against its manifest entry."""
    problems = []
    d, rd = case["config"]["head_dim"], case["config"]["rotary_dim"]
    if "qkNorm" in case:
        for w in ("q", "k"):
            weight = t[f"{w}_norm_weight"]
            if weight.shape != (d,) or not np.all(np.isfinite(weight)):
                problems.append(f"{w}_norm_weight: must be [{d}] finite weights")
        if float.fromhex(case["qkNorm"]["epsHex"]) != case["qkNorm"]["eps"]:
            problems.append("qkNorm: eps and epsHex differ")
    if "cosSinCache" in case:
        c = case["cosSinCache"]
        cache, positions = t["cos_sin_cache"], t["positions"].astype(np.int64).ravel()
        if cache.shape != (c["rows"], rd) or c["rows"] != int(positions.max()) + 1:
            problems.append(f"cos_sin_cache: shape {cache.shape} where rows {c['rows']} (the largest position + 1) "
                            f"x rotary_dim {rd} are stated")
            return problems
        named = np.zeros(c["rows"], dtype=bool)
        named[positions] = True
        if not np.all(np.isnan(cache[~named])):
            problems.append("cos_sin_cache: a row no position names holds a value (every such row is NaN)")
        m = float.fromhex(case["attentionFactorHex"])
        for half, name in ((0, "cos"), (1, "sin")):
            # The exact value is m * cos(a) for the case's exact angle a; t[name] is it
            # rounded to float64, so allow that rounding beside the cache's own.
            exact = m * t[name]
            got = cache[positions][:, half * (rd // 2):(half + 1) * (rd // 2)]
            allowed = half_ulp(exact, c["dtype"]) + np.abs(exact) * 2.0 ** -50
            if not np.all(np.abs(got - exact) <= allowed):
                problems.append(f"cos_sin_cache: the {name} half of a named row is not the exact value rounded to "
                                f"{c['dtype']}")
    return problems


def check_case(t, case, policies, widen):
    """Problems of one case, and the invalid outputs a widened consumer accepts (as (output, policy))."""
    problems, accepted = [], []
    fused = "kvWrite" in case
    v_expected = "v_cache_expected" if fused and case["kvWrite"]["cacheKind"] != "mla_joint" else None
    for p in policies:
        if not measure_output(t, "q_expected", "k_expected", p, widen)[1]:
            problems.append(f"the exact outputs exceed the {p} budget")
        if fused and not measure_caches(t, case, "k_cache_expected", v_expected, p, widen)[1]:
            problems.append(f"the exactly rounded caches lie outside the {p} codes")
    for i, o in enumerate(case.get("outputs", [])):
        label = f"output {i} ({o['mutant']}, {o['bugClass']})"
        allowed = set(o["allowedBy"])
        if (o["result"] == "invalid") != (not allowed):
            problems.append(f"{label}: result {o['result']} with allowedBy {sorted(allowed)}")
        for p in policies:
            worst, within = measure_output(t, o["q"], o["k"], p, widen)
            if fused:
                steps, cache_ok = measure_caches(t, case, o["kCache"], o["vCache"], p, widen)
                within = within and cache_ok
                stated_steps = o["cacheSteps"][p]
                stated_steps = math.inf if stated_steps == "inf" else stated_steps
                if widen == 1.0 and steps != stated_steps:
                    problems.append(f"{label}: cache steps under {p} are {steps!r} where the manifest states "
                                    f"{stated_steps!r}")
            if widen != 1.0:  # an output this policy must reject, accepted by the wider budget
                if within and p not in allowed:
                    how = f"{worst * widen:.3g} x its budget"  # in units of the exact budget
                    if fused:
                        how += f", caches {measure_caches(t, case, o['kCache'], o['vCache'], p)[0]:g} code(s) outside"
                    accepted.append((o, p, how))
                continue
            stated = o["worstUnits"][p]
            stated = math.inf if stated == "inf" else stated
            if within != (p in allowed):
                problems.append(f"{label}: {'meets' if within else 'exceeds'} the {p} budget, marked {o['result']}"
                                f" (allowedBy {sorted(allowed)})")
            if worst != stated:
                problems.append(f"{label}: worst units under {p} are {worst!r} where the manifest states {stated!r}")
    return problems, accepted


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--widen", type=float, default=1.0, help="multiply every budget by this (a looser consumer)")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args()
    if not (a.widen >= 1.0 and math.isfinite(a.widen)):
        sys.exit("--widen: must be a finite factor >= 1")
    try:
        m = load_manifest(a.dir)
        policies = list(m["policies"])
        failed, n, counts, accepted = 0, 0, {"invalid": 0, "acceptable": 0}, []
        for case in m["cases"]:
            t = load_case(a.dir, m, case)
            problems, acc = check_case(t, case, policies, a.widen)
            problems = check_inputs(t, case) + problems
            n += 1
            for o in case.get("outputs", []):
                counts[o["result"]] += 1
            accepted += [(case, o, p, w) for o, p, w in acc]
            if problems:
                failed += 1
                if not a.quiet:
                    print(f"FAIL case {case['id']} {case['name']}: {problems[0]} ({len(problems)} problem(s))")
    except (ExportError, KeyError, ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"{a.dir}: schema {m['schemaVersion']}, {n} cases, {len(policies)} policies: {failed} failed; "
          f"{counts['invalid']} invalid and {counts['acceptable']} acceptable outputs"
          + ("" if a.widen != 1.0 else ", each rejected and allowed as marked, worst units as stated; the exact "
             "outputs meet every budget"))
    if a.widen != 1.0:
        invalid = [x for x in accepted if x[1]["result"] == "invalid"]
        per_policy = {p: sum(x[2] == p for x in accepted) for p in policies}
        print(f"with every budget x{a.widen:g}: {len({id(o) for _, o, _, _ in invalid})} invalid outputs accepted (in "
              f"{len({c['id'] for c, _, _, _ in invalid})} cases); outputs a policy must reject accepted, per policy: "
              + ", ".join(f"{p} {k}" for p, k in per_policy.items()))
        for c, o, p, how in (invalid + accepted)[:5 if a.quiet else len(accepted)]:
            print(f"  accepted: case {c['id']} {c['name']}: {o['result']} {o['mutant']} ({o['bugClass']}) under {p}: "
                  f"{how}")
        return 1 if accepted or failed else 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
