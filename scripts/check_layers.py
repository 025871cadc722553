#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks that data flows one way (docs/ARCHITECTURE.md): every #include of a
project header in a non-test source names a folder its own folder may use.
Tests (files under a test/ folder) may use every library, never the CLI.
Usage: check_layers.py REPO_ROOT; exit 1 listing each violation."""
import pathlib
import re
import sys

# Folder -> the folders its sources may include from ("ropecheck" is the
# public include/ropecheck/ directory: the C ABI and its header-only
# vocabulary).
ALLOWED = {
    "ropecheck": set(),
    "reference": {"ropecheck"},
    "impls": {"ropecheck"},
    "core": {"ropecheck", "reference"},
    "properties": {"ropecheck", "reference", "core"},
    "gate": {"ropecheck", "reference", "core", "properties"},
    "golden": {"ropecheck", "reference", "core"},
    "mutants": {"ropecheck", "impls"},
    # fuzz/ harnesses drive every layer, the command line's parser included
    # (cli_args_fuzzer); nothing includes fuzz/.
    "fuzz": {"ropecheck", "reference", "core", "impls", "properties", "gate", "golden", "mutants", "speed", "cli"},
    # speed/ times a kernel (`ropecheck bench`) with core's cases, judge and
    # isolation and the baselines' passes; bench/'s programs use its passes.
    "speed": {"ropecheck", "reference", "core", "impls"},
    "bench": {"ropecheck", "reference", "core", "impls", "speed"},
    "cli": {"ropecheck", "reference", "core", "impls", "properties", "gate", "golden", "mutants", "speed"},
    "python": {"ropecheck", "reference", "core", "impls", "properties", "gate", "golden", "mutants", "speed"},
}
# core/ is one library in folders, one per job, ordered from the bottom up:
# a folder's sources may include its own folder and the folders before it
# (parallel/ and report/ stand alone). Files directly in core/ are not allowed.
CORE_ORDER = ["io", "config", "error_model", "cases", "isolation", "kernel", "judge"]
CORE_ALONE = ["parallel", "report"]
for i, sub in enumerate(CORE_ORDER):
    ALLOWED[f"core/{sub}"] = {"ropecheck", "reference"} | {f"core/{s}" for s in CORE_ORDER[:i]}
for sub in CORE_ALONE:
    ALLOWED[f"core/{sub}"] = {"ropecheck", "reference"}
# golden/ likewise, its rooms from the bottom up over core as a whole: the
# file formats, the flag/policy/bug-class catalogue, a case's fused parts,
# the mutants' outputs, the suites, the manifest, export, verify. Files
# directly in golden/ are not allowed (its README and CMakeLists.txt are not
# sources).
GOLDEN_ORDER = ["formats", "catalog", "fused", "outputs", "suites", "manifest", "export", "verify"]
for i, sub in enumerate(GOLDEN_ORDER):
    ALLOWED[f"golden/{sub}"] = ALLOWED["golden"] | {f"golden/{s}" for s in GOLDEN_ORDER[:i]}
ROOMED = {"core": CORE_ORDER + CORE_ALONE, "golden": GOLDEN_ORDER}
LIBRARIES = {k for k in ALLOWED if "/" not in k} - {"cli", "python"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder_of(path: pathlib.Path, root: pathlib.Path) -> str:
    rel = path.relative_to(root).parts
    if rel[0] == "include":
        return "ropecheck"
    if rel[0] in ROOMED and len(rel) > 2 and rel[1] != "test":
        return f"{rel[0]}/{rel[1]}"
    return rel[0]


def layer_of_include(inc: str, owner: str) -> str:
    """The layer an include names: a room of core (golden) for core's
    (golden's) own sources, the library as a whole for every other layer."""
    parts = inc.split("/")
    if parts[0] in ROOMED and owner.startswith(parts[0] + "/"):
        return f"{parts[0]}/{parts[1]}" if len(parts) > 2 else parts[0] + "/"
    return parts[0]


def main() -> int:
    root = pathlib.Path(sys.argv[1]).resolve()
    bad = []
    checked = 0
    for path in sorted(root.rglob("*")):
        if path.suffix not in {".h", ".cc", ".cu", ".cuh"} or "build" in path.relative_to(root).parts[:1]:
            continue
        owner = folder_of(path, root)
        if owner not in ALLOWED:
            continue  # examples/ are separate projects built against an install
        is_test = "test" in path.relative_to(root).parts
        if owner in ROOMED and not is_test:
            bad.append(f"{path.relative_to(root)}: a {owner} source outside {owner}'s job folders "
                       f"({', '.join(ROOMED[owner])})")
            continue
        allowed = (LIBRARIES if is_test else ALLOWED[owner]) | {owner}
        for inc in INCLUDE.findall(path.read_text(errors="replace")):
            target = layer_of_include(inc, owner)
            if target.split("/")[0] not in ALLOWED:
                continue  # a system or third-party header spelled with quotes
            checked += 1
            if target not in allowed:
                bad.append(f"{path.relative_to(root)}: includes \"{inc}\" ({owner} may use: "
                           f"{', '.join(sorted(allowed - {owner})) or 'nothing'})")
    for b in bad:
        print(b)
    print(f"check_layers: {checked} project includes checked, {len(bad)} against the data flow")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
