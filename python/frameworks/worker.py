# SPDX-License-Identifier: MIT
"""Runs inside a framework's venv: serves the rows of one adapter over the pipe
(protocol.py). Started by proxy.py as `python worker.py ADAPTER`; one worker
serves every row of its adapter (the framework is imported once: vLLM's
import alone takes 10-30 s), each row's kernel made when the row is opened.

A kernel is the adapter's `make_kernel(row)`, a function under ropecheck's
calling convention fn(q, k, positions, rope) -> (q_out, k_out) on numpy arrays;
`rope` here is a plain namespace with the RopeCall fields the proxy forwards.
The framework's own prints (vLLM logs to stdout) would corrupt the pipe, so the
pipe is a private copy of fd 1 and fd 1 itself is pointed at stderr.

Messages: {"open": row} makes the row's kernel and answers the framework's
version; {"row": id, "rope": fields} with q, k, positions calls it.
"""
import importlib
import os
import sys
import traceback
from types import SimpleNamespace

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import protocol  # noqa: E402


def main():
    adapter_name = sys.argv[1]
    out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    inp = os.fdopen(os.dup(0), "rb", buffering=0)
    kernels = {}
    adapter = None
    while True:
        try:
            header, arrays = protocol.receive(inp)
        except EOFError:
            return 0
        if "open" in header:
            row = header["open"]
            try:
                adapter = adapter or importlib.import_module(adapter_name)
                kernels[row["id"]] = adapter.make_kernel(row)
                protocol.send(out, {"ok": True, "version": adapter.version()})
            except Exception:
                protocol.send(out, {"ok": False, "error": traceback.format_exc()})
            continue
        try:
            q, k, positions = arrays
            q_out, k_out = kernels[header["row"]](q, k, positions, SimpleNamespace(**header["rope"]))
            protocol.send(out, {"ok": True}, [q_out, k_out])
        except Exception as e:
            # decline.Unsupported's message travels apart: the runner raises ropecheck.Unsupported with it
            protocol.send(out, {"ok": False, "kind": type(e).__name__, "message": str(e),
                                "error": traceback.format_exc()})


if __name__ == "__main__":
    sys.exit(main())
