#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What calling a kernel through Python costs per case: the quick gate on the
built-in scalar_naive called through ropecheck.check (the Python bridge:
dense copies, the Python call, result checks) against the same gate run in
process by the CLI (--no-isolation), both measured in this run, interleaved,
median of N runs. Usage:
  PYTHONPATH=build/release/python /usr/bin/python3 bench/python_overhead.py build/release/ropecheck [N]"""
import statistics
import subprocess
import sys
import time

import ropecheck


def main() -> None:
    cli, runs = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 5
    kernel = ropecheck.builtin_kernel("scalar_naive")
    py_times, cli_times = [], []
    cases = 0
    for _ in range(runs):
        t = time.perf_counter()
        r = ropecheck.check(kernel, suite="quick", seed=1)
        py_times.append(time.perf_counter() - t)
        cases = r.cases
        t = time.perf_counter()
        subprocess.run([cli, "check", "--impl", "scalar_naive", "--no-isolation", "--quiet", "--suite", "quick",
                        "--seed", "1"], check=True, capture_output=True)
        cli_times.append(time.perf_counter() - t)
    py, c = statistics.median(py_times), statistics.median(cli_times)
    print(f"quick suite, seed 1, {cases} cases, scalar_naive, median of {runs}")
    print(f"  through Python (ropecheck.check):  {py:.3f} s  ({1e3 * py / cases:.2f} ms/case)")
    print(f"  CLI in process (--no-isolation):   {c:.3f} s  ({1e3 * c / cases:.2f} ms/case)")
    print(f"  ratio Python / CLI: {py / c:.2f}x; overhead {1e3 * (py - c) / cases:+.2f} ms per case")


if __name__ == "__main__":
    main()
