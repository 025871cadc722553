#!/usr/bin/env bash
# Installs ropecheck's build and test dependencies from Debian's archive.
# Idempotent: packages already present are skipped, so the README's commands
# and .ci/run can both call it on every run.
#   --frameworks  also installs the real frameworks of docs/FRAMEWORKS.md
#                 (transformers, ONNX Runtime, liger-kernel, vLLM) into pinned
#                 venvs (python/frameworks/install.sh, about 5 min and 15 GB
#                 from scratch): README's whole-suite command asks for them,
#                 the quick gate does not.
set -euo pipefail
frameworks=0
for arg in "$@"; do
  case "$arg" in
    --frameworks) frameworks=1 ;;
    *) echo "setup: unknown option $arg (known: --frameworks)" >&2; exit 2 ;;
  esac
done

packages=(
  build-essential cmake ninja-build pkg-config
  ccache                            # the build compiles through it (cmake/RopecheckCcache.cmake): pip's build reuses the release tree's objects
  clang libclang-rt-14-dev          # libFuzzer and sanitizer runtimes
  libboost-dev libmpfr-dev libgmp-dev  # Boost.Multiprecision + MPFR backend
  librapidcheck-dev googletest libgtest-dev libgmock-dev
  libhwy-dev libbenchmark-dev
  nlohmann-json3-dev libcli11-dev
  python3 python3-numpy python3-jsonschema  # python/golden_checks consumers, manifest schema test
  python3-torch                     # python/golden_checks/check_torch.py: real framework code on golden inputs
  python3-dev pybind11-dev python3-pytest   # the ropecheck Python module and its tests
  python3-venv                      # ctest pip_install (`pip install .` in a venv) and the framework venvs
  libssl-dev                        # SHA-256 of golden files (OpenSSL EVP)
  libseccomp-dev                    # a kernel call's processes held in its tree (core/isolation/descendant_hold)
  chromium                          # renders the HTML report in a test
  libxml2-utils                     # xmllint validates the JUnit output in a test
)
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
