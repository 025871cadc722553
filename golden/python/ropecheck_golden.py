"""Loads ropecheck golden vectors with numpy only (no ropecheck build needed).

    import ropecheck_golden as rg
    export = rg.load("golden/vectors/smoke/safetensors")
    for case in export.cases:
        case.tensor("q")            # float64 array [tokens, q_heads, head_dim]
        case.budget("q", "exact_f64")

Every file is checked against the manifest's size and SHA-256 before it is
parsed, and manifest.json against SHA256SUMS: a truncated or altered file
raises GoldenError naming it. Formats: safetensors (read by hand: an 8-byte
little-endian header size, a JSON header, the data), npy (numpy.load; bf16
as uint16 bit patterns), and JSON with exact hex floats (float.fromhex).
"""
import hashlib
import json
import os

import numpy as np

SCHEMA = "ropecheck_golden_manifest_v1.schema.json"
_SAFETENSORS_DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "BF16": "<u2", "I64": "<i8"}
_HEX_DTYPES = {"f64": "<f8", "f32": "<f4", "f16": "<f2", "bf16": "<u2", "i64": "<i8"}


class GoldenError(Exception):
    """A golden file is missing, truncated, altered or malformed."""


def bf16_bits_to_f64(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def _read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise GoldenError(f"{path}: cannot be read ({e.strerror})") from None


def _safetensors(data, path):
    if len(data) < 8:
        raise GoldenError(f"{path}: shorter than the 8-byte header size")
    n = int.from_bytes(data[:8], "little")
    if n > len(data) - 8:
        raise GoldenError(f"{path}: header size {n} exceeds the file (truncated?)")
    try:
        header = json.loads(data[8:8 + n])
    except ValueError as e:
        raise GoldenError(f"{path}: header is not JSON ({e})") from None
    buf = data[8 + n:]
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        begin, end = e["data_offsets"]
        if not 0 <= begin <= end <= len(buf):
            raise GoldenError(f"{path}: tensor {name}: data_offsets outside the buffer (truncated?)")
        arr = np.frombuffer(buf[begin:end], dtype=_SAFETENSORS_DTYPES[e["dtype"]])
        out[name] = arr.reshape(e["shape"])
    return out


def _hex_json(data, path):
    try:
        doc = json.loads(data)
    except ValueError as e:
        raise GoldenError(f"{path}: not JSON (truncated?): {e}") from None
    out = {}
    for t in doc["tensors"]:
        dt = t["dtype"]
        if dt == "i64":
            arr = np.array(t["values"], dtype=np.int64)
        else:
            vals = np.array([float.fromhex(v) for v in t["values"]], dtype=np.float64)
            if dt == "bf16":  # exact bf16 values: keep their bit patterns like the other formats
                arr = (vals.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
            else:
                arr = vals.astype(_HEX_DTYPES[dt])
        out[t["name"]] = arr.reshape(t["shape"])
    return out


class Case:
    def __init__(self, entry, arrays):
        self.entry = entry
        self.id = entry["id"]
        self.name = entry["name"]
        self.flags = set(entry["flags"])
        self.config = entry["config"]
        self.dtype = entry["dtype"]
        self.layout = self.config["layout"]
        self.inverse = entry["direction"] == "inverse"
        self.attention_factor = float.fromhex(entry["attentionFactorHex"])
        self.head_dim = self.config["head_dim"]
        self.rotary_dim = self.config["rotary_dim"]
        self._arrays = arrays

    def raw(self, name):
        return self._arrays[name]

    def tensor(self, name):
        """Values as float64 (storage tensors decoded from their dtype)."""
        a = self._arrays[name]
        if a.dtype == np.uint16:
            return bf16_bits_to_f64(a)
        return a.astype(np.float64)

    def budget(self, which, policy):
        return self._arrays[f"{which}_budget_{policy}"]


class Export:
    def __init__(self, directory):
        self.directory = directory
        text = _read(os.path.join(directory, "manifest.json"))
        sums = os.path.join(directory, "SHA256SUMS")
        if os.path.exists(sums):
            listed = {line[66:]: line[:64] for line in _read(sums).decode().splitlines()}
            if listed.get("manifest.json") != hashlib.sha256(text).hexdigest():
                raise GoldenError(f"{directory}/manifest.json: does not match SHA256SUMS (altered or truncated)")
        try:
            self.manifest = json.loads(text)
        except ValueError as e:
            raise GoldenError(f"{directory}/manifest.json: not JSON ({e})") from None
        if self.manifest.get("schema") != SCHEMA:
            raise GoldenError(f"{directory}/manifest.json: schema must be {SCHEMA}")
        self.format = self.manifest["format"]
        self.policies = list(self.manifest["policies"])

    def _load_file(self, f):
        path = os.path.join(self.directory, f["path"])
        data = _read(path)
        if len(data) != f["bytes"]:
            raise GoldenError(f"{path}: {len(data)} bytes where the manifest records {f['bytes']} (truncated?)")
        if hashlib.sha256(data).hexdigest() != f["sha256"]:
            raise GoldenError(f"{path}: sha256 does not match the manifest (altered file)")
        if self.format == "safetensors":
            return _safetensors(data, path)
        if self.format == "json":
            return _hex_json(data, path)
        import io
        name = os.path.splitext(os.path.basename(path))[0]
        return {name: np.load(io.BytesIO(data), allow_pickle=False)}

    @property
    def cases(self):
        for entry in self.manifest["cases"]:
            arrays = {}
            for f in entry["files"]:
                arrays.update(self._load_file(f))
            yield Case(entry, arrays)


def load(directory):
    return Export(directory)
