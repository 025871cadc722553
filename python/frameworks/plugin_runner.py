# SPDX-License-Identifier: MIT
"""A plugin row (a framework's own code built as a ropecheck plugin, through the
C ABI) judged by the `ropecheck check` command: the quick suite, seed 1, the
kernel's own declaration (its table), the JSON report read back into the
summary run_frameworks.py writes for every row.

The command is what a plugin author runs; no Python kernel is involved. Its
reproduce lines name the plugin by its path under the venvs root, written
here as $ROPECHECK_FRAMEWORKS_VENVS so the table does not depend on where the
venvs are."""
import ctypes
import json
import os
import subprocess
import tempfile
import time

RANGES = ["<2^10", "2^10..2^16", "2^16..2^20", ">=2^20"]  # core/judge/judge.cc's bins, in report order
VENVS_TOKEN = "$ROPECHECK_FRAMEWORKS_VENVS"
REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def ropecheck_binary():
    """The `ropecheck` command: $ROPECHECK_BIN, else the one beside the module's build (build/release)."""
    if os.environ.get("ROPECHECK_BIN"):
        return os.environ["ROPECHECK_BIN"]
    import ropecheck
    return os.path.normpath(os.path.join(os.path.dirname(ropecheck.__file__), "..", "..", "ropecheck"))


def plugin_path(row, venvs):
    return os.path.join(venvs, row["venv"], row["plugin"])


def version_of(row, venvs):
    with open(os.path.join(venvs, row["venv"], "VERSION"), encoding="utf-8") as f:
        return f.read().strip()


def run_check(row, venvs, extra=()):
    """The command's exit status and JSON report for the row (`extra`: more options, e.g. --case)."""
    binary = ropecheck_binary()
    if not os.path.exists(binary):
        raise SystemExit(f"plugin_runner: no ropecheck command at {binary} (build it, or set ROPECHECK_BIN)")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "report.json")
        # a row's `config` (a model's rope config, path from the repository root) fixes every case's shape,
        # scheme and axes; the command runs from the root so its reproduce lines name it as the table does
        config = ["--config", row["config"]] if row.get("config") else []
        cmd = [binary, "check", "--plugin", plugin_path(row, venvs), "--impl", row["impl"], "--suite",
               row.get("suite", "quick"), "--seed", "1", "--json", out, "--quiet", *config,
               *row.get("check_args", []), *extra]
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO)
        if proc.returncode not in (0, 1) or not os.path.exists(out):
            raise RuntimeError(f"plugin_runner: {' '.join(cmd)} exited {proc.returncode}:\n"
                               f"{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
        with open(out, encoding="utf-8") as f:
            report = json.load(f)["report"]
    impl = next(i for i in report["implementations"] if i["name"] == row["impl"])
    return proc.returncode, report, impl


def has_device(row, venvs):
    """(True, "") when the CUDA runtime finds a GPU, else (False, why): asked of the plugin itself
    (ropecheck_flashinfer_has_device, its cudaGetDeviceCount), so the answer is the one its kernels get."""
    try:
        lib = ctypes.CDLL(plugin_path(row, venvs))
        why = ctypes.create_string_buffer(512)
        lib.ropecheck_flashinfer_has_device.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
        return bool(lib.ropecheck_flashinfer_has_device(why, len(why))), why.value.decode(errors="replace")
    except (OSError, AttributeError) as e:
        # a plugin that does not load is no "built, not run" row: the run stops naming it
        raise SystemExit(f"plugin_runner: {row['id']}: the plugin could not be loaded and asked for a GPU: {e}")


def not_run(row, version, seconds, why):
    """A GPU row on a machine without a GPU: built (the plugin loaded), its declaration, nothing judged."""
    print(f"plugin_runner: {row['id']}: not run ({why})", flush=True)
    return {"id": row["id"], "framework": row["framework"], "variant": row["variant"], "version": version,
            "dtypes": row["dtypes"], "layouts": row["layouts"], "schemes": row["schemes"], "policy": row["policy"],
            "not_run": row["not_run_text"], "cases_judged": 0, "cases_refused": 0, "failed_cases": [],
            "failures": [], "worst_budget_units": None, "worst_ulps": None, "position_ranges": {},
            "expect": row.get("expect"), "passed": None, "seconds": round(seconds, 1), "errors": [],
            "plugin": True}


def run_row(row, venvs):
    """run_frameworks' summary of a plugin row; a failure whose message carries the row's `refusal` (the
    plugin's UNSUPPORTED for a case its framework cannot take) is counted apart, as a Python row's refused
    call is. A row that needs a GPU (`needs_gpu`) on a machine without one is not run: its `not_run_text`."""
    if not os.path.exists(plugin_path(row, venvs)):
        raise SystemExit(f"run_frameworks: no plugin {plugin_path(row, venvs)}: run python/frameworks/install.sh "
                         f"(scripts/setup.sh --frameworks)")
    t0 = time.monotonic()
    version = version_of(row, venvs)
    if row.get("needs_gpu"):
        ok, why = has_device(row, venvs)
        if not ok:
            return not_run(row, version, time.monotonic() - t0, why)
    rc, report, impl = run_check(row, venvs)
    seconds = time.monotonic() - t0
    refusal = row["refusal"]
    fams = {f["family"]: dict(cases=f["cases"], skipped=f["skipped"], worst_budget_units=f["worstUnits"],
                              worst_ulps=f["worstUlps"]) for f in impl["families"]}
    judged_fams = {k: v for k, v in fams.items() if v["cases"] > v["skipped"]}
    failures = impl["failures"]
    by_case = {}
    for f in failures:
        by_case.setdefault(f["caseIndex"], []).append(f)
    refused = sorted(c for c, fs in by_case.items() if all(refusal in f["message"] for f in fs))
    numeric = [f for f in failures if f["caseIndex"] not in refused]
    root = os.path.normpath(venvs)

    def clean(text):  # the venvs root, which differs between machines, as a variable
        return text.replace(root, VENVS_TOKEN)

    ranges = {}
    for name, b in zip(RANGES, impl["bins"]):
        if b["elements"] > 0:
            ranges[name] = f"{_fmt(b['worstUnits'])} budget, {_fmt(b['worstUlps'])} ulp"
    return {
        "id": row["id"], "framework": row["framework"], "variant": row["variant"], "version": version,
        "dtypes": row["dtypes"], "layouts": row["layouts"], "schemes": row["schemes"], "policy": impl["policy"],  # the table's, as ropecheck prints it
        "suite": report["suite"], "seed": report["seed"], "case_bound": None,
        "cases_judged": sum(v["cases"] - v["skipped"] for v in judged_fams.values()),
        "cases_refused": len(refused),
        "failed_cases": sorted({f["caseIndex"] for f in numeric}),
        "families": judged_fams,
        "worst_budget_units": max((v["worst_budget_units"] for v in judged_fams.values()), default=None),
        "worst_ulps": max((v["worst_ulps"] for v in judged_fams.values()), default=None),
        "position_ranges": ranges,
        "failures": [dict(case=f["caseIndex"], property=f["property"], family=f["family"],
                          message=clean(f["message"])[:400], reproduce=clean(f["reproduce"]),
                          cli_reproduce=clean(f["reproduce"])) for f in numeric[:20]],
        "failed_properties": sorted({f["property"] for f in numeric}),
        "failed_families": sorted({f["family"] for f in numeric}),
        "refused_example": next((clean(f["message"])[:300] for f in failures if refusal in f["message"]), None),
        "expect": row.get("expect"), "passed": rc == 0, "seconds": round(seconds, 1),
        "errors": [], "plugin": True,
        "under_floor": impl.get("underFloor", []),
        # an expected failure that names its message: every failing case must show it (G1's access past a row)
        "all_failures_match": all(row["expect"]["message"] in f["message"] for f in numeric)
        if row.get("expect", {}).get("message") else True,
    }


def _fmt(v):
    return ("%.2e" if v != 0 and (abs(v) < 1e-3 or abs(v) >= 1e5) else "%.3f") % v
