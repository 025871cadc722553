"""Runs inside a framework's venv: serves one adapter row's kernel over the
pipe (protocol.py). Started by proxy.py as `python worker.py ADAPTER ROW_JSON`.

The kernel is the adapter's `make_kernel(row)`, a function under ropecheck's
calling convention fn(q, k, positions, rope) -> (q_out, k_out) on numpy arrays;
`rope` here is a plain namespace with the RopeCall fields the proxy forwards.
The framework's own prints (vLLM logs to stdout) would corrupt the pipe, so the
pipe is a private copy of fd 1 and fd 1 itself is pointed at stderr.
"""
import importlib
import json
import os
import sys
import traceback
from types import SimpleNamespace

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import protocol  # noqa: E402


def main():
    adapter_name, row_json = sys.argv[1], sys.argv[2]
    out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    inp = os.fdopen(os.dup(0), "rb", buffering=0)
    row = json.loads(row_json)
    try:
        adapter = importlib.import_module(adapter_name)
        kernel = adapter.make_kernel(row)
        protocol.send(out, {"ok": True, "version": adapter.version()})
    except Exception:
        protocol.send(out, {"ok": False, "error": traceback.format_exc()})
        return 1
    while True:
        try:
            header, arrays = protocol.receive(inp)
        except EOFError:
            return 0
        try:
            q, k, positions = arrays
            q_out, k_out = kernel(q, k, positions, SimpleNamespace(**header["rope"]))
            protocol.send(out, {"ok": True}, [q_out, k_out])
        except Exception as e:
            protocol.send(out, {"ok": False, "kind": type(e).__name__, "error": traceback.format_exc()})


if __name__ == "__main__":
    sys.exit(main())
