# SPDX-License-Identifier: MIT
"""The pipe between the runner (Debian's python3 with the ropecheck module) and a
framework worker (a venv's python with the framework): one message is a
4-byte little-endian header length, a JSON header, then the raw bytes of each
array the header lists (dtype, shape). Raw bytes, not pickle: the two sides
run different numpy majors (1.24 and 2.x), whose pickles do not interchange.
"""
import json
import struct

import numpy as np

DTYPES = ("float32", "float16", "float64", "int64")


def _read_exact(stream, n):
    # a pipe hands out what it holds: an unbuffered read returns short, so read until n bytes or EOF
    parts, got = [], 0
    while got < n:
        chunk = stream.read(n - got)
        if not chunk:
            raise EOFError(f"pipe closed after {got} of {n} bytes")
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts)


def send(stream, header, arrays=()):
    header = dict(header)
    header["arrays"] = []
    blobs = []
    for a in arrays:
        a = np.ascontiguousarray(a)
        if str(a.dtype) not in DTYPES:
            raise TypeError(f"protocol: dtype {a.dtype} is not carried ({', '.join(DTYPES)})")
        header["arrays"].append({"dtype": str(a.dtype), "shape": list(a.shape)})
        blobs.append(a.tobytes())
    text = json.dumps(header).encode("utf-8")
    stream.write(struct.pack("<I", len(text)) + text)
    for b in blobs:
        stream.write(b)
    stream.flush()


def receive(stream):
    (n,) = struct.unpack("<I", _read_exact(stream, 4))
    header = json.loads(_read_exact(stream, n).decode("utf-8"))
    arrays = []
    for spec in header["arrays"]:
        dt = np.dtype(spec["dtype"])
        count = int(np.prod(spec["shape"], dtype=np.int64))
        raw = _read_exact(stream, count * dt.itemsize)
        arrays.append(np.frombuffer(raw, dtype=dt).reshape(spec["shape"]).copy())
    return header, arrays
