# SPDX-License-Identifier: MIT
"""What the golden script tests that alter an export share: writing the
altered manifest (and any altered case file) back with SHA256SUMS and the
manifest's file entries recomputed, as a forger or a hand edit would, so
that only the checks on values can catch it (golden/test/forge.h does the
same for the C++ tests)."""
import hashlib
import json


def rewrite(d, manifest, files=None):
    """Writes `manifest` into the export `d`, with each of `files` (relative
    path -> bytes, already entered in the manifest) and SHA256SUMS updated."""
    files = dict(files or {})
    for path, data in files.items():
        open(f"{d}/{path}", "wb").write(data)
    files["manifest.json"] = json.dumps(manifest, indent=1).encode()
    open(f"{d}/manifest.json", "wb").write(files["manifest.json"])
    sums = [l for l in open(f"{d}/SHA256SUMS").read().splitlines()
            if not any(l.endswith("  " + p) for p in files)]
    sums += [hashlib.sha256(data).hexdigest() + "  " + p for p, data in files.items()]
    open(f"{d}/SHA256SUMS", "w").write("\n".join(sums) + "\n")
