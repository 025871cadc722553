# SPDX-License-Identifier: MIT
"""ropecheck.golden: the export reader from Python (the C++ reader `golden
verify` uses), on the committed smoke vectors."""
import hashlib
import os
import shutil

import numpy as np
import pytest

import ropecheck
import ropecheck.golden as rg

SMOKE = os.path.join(os.path.dirname(__file__), "..", "..", "golden", "vectors", "smoke")
FORMATS = ("safetensors", "npy", "json")


def smoke(fmt):
    return os.path.join(SMOKE, fmt)


def test_the_three_formats_hold_the_same_values_bit_for_bit():
    exports = {f: rg.load(smoke(f)) for f in FORMATS}
    n = len(exports["safetensors"])
    assert n > 0
    for f in FORMATS:
        assert len(exports[f]) == n, f
    for i in range(n):
        cases = {f: exports[f].case(i) for f in FORMATS}
        base = cases["safetensors"]
        assert base.names == cases["npy"].names == cases["json"].names
        for name in base.names:
            a = base.raw(name)
            for f in ("npy", "json"):
                b = cases[f].raw(name)
                assert a.dtype == b.dtype and a.shape == b.shape, (f, base.id, name)
                assert a.tobytes() == b.tobytes(), (f, base.id, name)


def test_expected_values_are_the_reference_of_the_stored_inputs():
    # The reader's tensors against ropecheck.reference on the same inputs:
    # the export and the module agree on the exact, correctly rounded result.
    export = rg.load(smoke("safetensors"))
    checked = 0
    for case in export.cases:
        # ropecheck.reference takes one position per token: multi-axis cases
        # are checked against the exported angles below.
        if case.dtype not in ("f32", "f64") or case.inverse or case.axes:
            continue
        q, k = case.tensor("q"), case.tensor("k")
        dt = np.float32 if case.dtype == "f32" else np.float64
        r = ropecheck.reference(q.astype(dt), k.astype(dt), case.raw("positions"), case.config,
                                layout=case.layout, dtype=case.dtype)
        assert np.array_equal(r["q"].astype(np.float64), case.tensor("q_expected")), case.name
        assert np.array_equal(r["k"].astype(np.float64), case.tensor("k_expected")), case.name
        assert np.array_equal(r["q_f64"], case.tensor("q_expected_f64")), case.name
        checked += 1
    assert checked >= 3


def pair_axis_of(axes, pairs):
    """The axis of every pair, from the manifest's description (ropecheck/axes.h), written out here."""
    n, kind = axes["numAxes"], axes["assignment"]
    if kind == "table":
        return np.array(axes["table"])
    s = axes["sections"]
    if kind == "sections":
        return np.repeat(np.arange(n), s)
    return np.array([i % n if i % n and i < n * s[i % n] else 0 for i in range(pairs)])


def test_multi_axis_cases_hold_positions_per_axis_and_each_pairs_axis():
    # positions [num_axes, tokens], pair_axis as the manifest's assignment
    # defines it, and the exported exact angles p * w with p the position of
    # the pair's axis (both rounded to double: within an ulp of the product).
    export = rg.load(smoke("safetensors"))
    seen = set()
    for case in export.cases:
        if not case.axes:
            assert case.raw("positions").shape == (case.entry["tokens"],), case.name
            continue
        seen.add(case.name.split("/")[0])
        pairs = case.rotary_dim // 2
        positions = case.raw("positions")
        assert positions.shape == (case.num_axes, case.entry["tokens"]), case.name
        assert np.array_equal(case.raw("pair_axis"), pair_axis_of(case.axes, pairs)), case.name
        p = case.pair_positions()
        assert p.shape == (case.entry["tokens"], pairs)
        assert np.array_equal(p, positions[pair_axis_of(case.axes, pairs), :].T), case.name
        product = p.astype(np.float64) * case.tensor("inv_freq")[None, :]
        assert np.allclose(case.tensor("angle"), product, rtol=4.5e-16, atol=0), case.name
    assert seen == {"qwen2-vl", "qwen3-vl", "vit-2d", "flux"}


def copy_export(tmp_path, fmt="safetensors"):
    dst = tmp_path / fmt
    shutil.copytree(smoke(fmt), dst)
    return dst


def test_an_altered_case_file_is_refused_naming_it(tmp_path):
    d = copy_export(tmp_path)
    export = rg.load(d)
    rel = export.manifest["cases"][0]["files"][0]["path"]
    path = d / rel
    data = bytearray(path.read_bytes())
    data[-1] ^= 1
    path.write_bytes(bytes(data))
    export = rg.load(d)  # the manifest is intact
    with pytest.raises(rg.GoldenError, match=rel.split("/")[-1]):
        export.case(0)


def test_sha256sums_is_required_and_can_be_pinned(tmp_path):
    d = copy_export(tmp_path)
    sums = (d / "SHA256SUMS").read_bytes()
    rg.load(d, expect_sha256=hashlib.sha256(sums).hexdigest())
    with pytest.raises(rg.GoldenError, match="SHA256SUMS"):
        rg.load(d, expect_sha256="0" * 64)
    (d / "SHA256SUMS").unlink()
    with pytest.raises(rg.GoldenError, match="SHA256SUMS"):
        rg.load(d)


def test_a_missing_directory_is_refused():
    with pytest.raises(rg.GoldenError):
        rg.load("/nonexistent/ropecheck-export")


def test_torch_tensors_hold_the_stored_values():
    torch = pytest.importorskip("torch", reason="python3-torch is not installed (scripts/setup.sh --tests installs it)")
    export = rg.load(smoke("safetensors"))
    dtypes = set()
    for case in export.cases:
        t = case.torch("q")
        dtypes.add(t.dtype)
        assert np.array_equal(t.to(torch.float64).numpy(), case.tensor("q")), case.name
    assert torch.bfloat16 in dtypes and torch.float32 in dtypes
