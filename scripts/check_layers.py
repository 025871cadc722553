#!/usr/bin/env python3
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
    "fuzz": {"ropecheck", "reference", "core", "impls", "properties", "golden", "mutants", "cli"},
    "bench": {"ropecheck", "impls"},
    "cli": {"ropecheck", "reference", "core", "impls", "properties", "gate", "golden", "mutants"},
    "python": {"ropecheck", "reference", "core", "impls", "properties", "gate", "golden", "mutants"},
}
LIBRARIES = set(ALLOWED) - {"cli", "python"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder_of(path: pathlib.Path, root: pathlib.Path) -> str:
    rel = path.relative_to(root).parts
    return "ropecheck" if rel[0] == "include" else rel[0]


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
        allowed = (LIBRARIES if is_test else ALLOWED[owner]) | {owner}
        for inc in INCLUDE.findall(path.read_text(errors="replace")):
            target = inc.split("/")[0]
            if target not in ALLOWED:
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
