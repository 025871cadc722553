# SPDX-License-Identifier: MIT
"""Runner side of a framework worker: a ropecheck kernel (fn(q, k, positions,
rope) -> (q_out, k_out)) that forwards every call to worker.py running in the
row's venv and returns the worker's arrays, which are already plain host numpy
arrays (the adapters copy their framework tensors out). The rows of one
adapter share one worker (same venv and environment)."""
import atexit
import json
import os
import platform
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import protocol  # noqa: E402

# RopeCall fields a framework adapter reads; config is ropecheck's schema (a dict). The axis fields are a
# multi-axis call's (num_axes 0 for one position per token).
_FIELDS = ("head_dim", "rotary_dim", "layout", "direction", "scheme", "dtype", "seq_len", "num_axes",
           "axis_assignment", "axis_frequencies")
_LISTS = ("axis_sections", "pair_axis")
_AXIS_DEFAULTS = {"num_axes": 0, "axis_assignment": "", "axis_frequencies": ""}


class WorkerError(RuntimeError):
    """The framework raised; the message is its traceback (ropecheck records it as the case's error)."""


class _Worker:
    """worker.py in a venv, serving every row of one adapter (one import of the framework for all of them)."""

    def __init__(self, adapter, python, env):
        full_env = dict(os.environ)
        # 2 cores: torch's default thread pool, contending with the runner, was 250x slower
        full_env.update({"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONDONTWRITEBYTECODE": "1",
                         "TRANSFORMERS_VERBOSITY": "error"})  # config-validation warnings per call
        full_env.pop("PYTHONPATH", None)  # the venv must not see the runner's ropecheck / numpy 1.x
        # torch's CPU kernels (and torch.compile's generated code) dispatch on
        # the CPU's vector ISA, and a vectorised sin/cos rounds differently
        # with AVX-512 than with AVX2: docs/FRAMEWORKS.md, written on an
        # earlier machine, differed in one worst-error cell from a run on an
        # AVX2-only one (2026-11-29: SGLang's DeepSeek YaRN, 2^10..2^16, 0.098
        # there, 0.148 here, at both 099deef and its successor). AVX2 on
        # every x86-64 machine, so that the table does not follow the CPU.
        # XLA's CPU compiler (penzai's JAX) likewise targets the host's ISA:
        # its --xla_cpu_max_isa, appended to the flags an adapter passes
        # (jaxlib 0.10.2 knows it; an unknown flag aborts XLA). Other venvs
        # never read XLA_FLAGS.
        x86 = platform.machine() in ("x86_64", "AMD64")
        if x86:
            full_env.setdefault("ATEN_CPU_CAPABILITY", "avx2")
        full_env.update(env or {})
        if x86 and "--xla_cpu_max_isa" not in full_env.get("XLA_FLAGS", ""):
            full_env["XLA_FLAGS"] = (full_env.get("XLA_FLAGS", "") + " --xla_cpu_max_isa=AVX2").strip()
        self.adapter = adapter
        self.proc = subprocess.Popen([python, os.path.join(HERE, "worker.py"), adapter],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=full_env, cwd=HERE)

    def request(self, header, arrays=()):
        try:
            protocol.send(self.proc.stdin, header, arrays)
            return protocol.receive(self.proc.stdout)
        except (BrokenPipeError, EOFError) as e:
            raise WorkerError(f"the {self.adapter} worker died (exit status {self.proc.wait()}): {e}") from e

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


_WORKERS = {}


def _worker(adapter, python, env):
    key = (adapter, python, json.dumps(env or {}, sort_keys=True))
    w = _WORKERS.get(key)
    if w is None or w.proc.poll() is not None:
        w = _WORKERS[key] = _Worker(adapter, python, env)
    return w


def close_all():
    """Ends every worker (run_frameworks at its end; also at exit)."""
    while _WORKERS:
        _WORKERS.popitem()[1].close()


atexit.register(close_all)


class FrameworkKernel:
    """One row of an adapter as a ropecheck kernel, served by the adapter's shared worker."""

    def __init__(self, adapter, row, python, env=None):
        self.adapter, self.row = adapter, row
        self.__name__ = row["id"]
        self.worker = _worker(adapter, python, env)
        header, _ = self.worker.request({"open": row})
        if not header["ok"]:
            raise WorkerError(f"{adapter} row {row['id']} did not start:\n{header['error']}")
        self.version = header["version"]

    def __call__(self, q, k, positions, rope):
        fields = {f: getattr(rope, f, _AXIS_DEFAULTS.get(f)) for f in _FIELDS}  # a 1D caller may omit the axes
        fields.update({f: [int(v) for v in getattr(rope, f, [])] for f in _LISTS})
        fields["hf_config"] = json.loads(json.dumps(rope.hf_config))
        fields["config"] = json.loads(json.dumps(dict(rope.config)))
        header, arrays = self.worker.request({"row": self.row["id"], "rope": fields},
                                             [np.asarray(q), np.asarray(k), np.asarray(positions, dtype=np.int64)])
        if not header["ok"] and header.get("kind") == "Unsupported":  # decline.Unsupported: a skip, by reason
            import ropecheck
            raise ropecheck.Unsupported(header["message"])
        if not header["ok"]:
            raise WorkerError(f"{header.get('kind', 'Error')}: {header['error'].strip().splitlines()[-1]}\n"
                              f"{header['error']}")
        q_out, k_out = arrays  # no cast: a wrong dtype is the kernel's, for ropecheck's contract check
        return q_out, k_out

    def close(self):
        """The worker stays for the adapter's other rows; close_all ends it."""
