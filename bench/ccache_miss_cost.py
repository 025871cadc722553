#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What compiling through ccache adds on a miss (bench/RESULTS.md): ccache 4.7
preprocesses a file (-E) before compiling it when the direct-mode lookup
misses. Prints the CPU seconds of `-E` over the compile commands that build
the given targets in a configured Ninja tree.

Usage: ccache_miss_cost.py BUILD_DIR TARGET...   (e.g. build/release ropecheck ropecheck_python)"""
import resource
import shlex
import subprocess
import sys


def preprocess_only(command):
    """The compile command, without its launcher, objects and depfiles, as `-E -o /dev/null`."""
    argv = shlex.split(command)
    if "ccache" in " ".join(argv):
        argv = argv[next(i for i, a in enumerate(argv) if a.endswith("ccache")) + 1:]
    out = []
    skip = 0
    for a in argv:
        if skip:
            skip -= 1
        elif a in ("-o", "-MT", "-MF"):
            skip = 1
        elif a not in ("-c", "-MD"):
            out.append(a)
    return out + ["-E", "-o", "/dev/null"]


def main(build, targets):
    lines = subprocess.run(["ninja", "-C", build, "-t", "commands", *targets], capture_output=True, text=True,
                           check=True).stdout.splitlines()
    compiles = [line for line in lines if " -c " in line]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    for command in compiles:
        subprocess.run(preprocess_only(command), cwd=build, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"{len(compiles)} files: preprocessing {cpu:.1f} s of CPU")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: ccache_miss_cost.py BUILD_DIR TARGET...")
    main(sys.argv[1], sys.argv[2:])
