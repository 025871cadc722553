#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs ropecheck's dependencies from Debian's archive.
# Idempotent: packages already present are skipped, so the README's commands
# and .ci/run can both call it on every run.
#   (no option)   what the `ropecheck` command needs to build and run: README's
#                 first command (the gate), nothing only the tests use
#   --tests       also what the test suite, the Python module, the fuzzers and
#                 the benchmarks use (README's whole-suite command)
#   --frameworks  --tests, and the real frameworks of docs/FRAMEWORKS.md
#                 (transformers, ONNX Runtime, liger-kernel, vLLM) into pinned
#                 venvs (python/frameworks/install.sh, about 5 min and 15 GB
#                 from scratch), and the published bugs' releases as layers
#                 on them (about 1 min and 1.2 GB more)
set -euo pipefail
tests=0
frameworks=0
for arg in "$@"; do
  case "$arg" in
    --tests) tests=1 ;;
    --frameworks) tests=1; frameworks=1 ;;
    *) echo "setup: unknown option $arg (known: --tests, --frameworks)" >&2; exit 2 ;;
  esac
done

# The gate: the command and the libraries it links.
packages=(
  build-essential cmake ninja-build pkg-config python3
  ccache                            # the build compiles through it (cmake/RopecheckCcache.cmake): a rebuild, pip's build reuse its objects
  libboost-dev libmpfr-dev libgmp-dev  # Boost.Multiprecision + MPFR backend
  libhwy-dev                        # Highway: the SIMD kernels and the bench's passes
  nlohmann-json3-dev libcli11-dev
  libssl-dev                        # SHA-256 of golden files (OpenSSL EVP)
  libseccomp-dev                    # a kernel call's processes held in its tree (core/isolation/descendant_hold)
)
if ((tests)); then
  packages+=(
    clang libclang-rt-14-dev          # libFuzzer and sanitizer runtimes
    librapidcheck-dev googletest libgtest-dev libgmock-dev
    libbenchmark-dev
    python3-numpy python3-jsonschema  # python/golden_checks consumers, manifest schema test
    python3-torch                     # python/golden_checks/check_torch.py: real framework code on golden inputs
    python3-dev pybind11-dev python3-pytest   # the ropecheck Python module and its tests
    python3-venv                      # ctest pip_install (`pip install .` in a venv) and the framework venvs
    chromium                          # renders the HTML report in a test
    libxml2-utils                     # xmllint validates the JUnit output in a test
  )
fi
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all ${#packages[@]} packages present"
fi

if ((frameworks)); then
  "$(dirname "$0")/../python/frameworks/install.sh"
fi
