#!/usr/bin/env bash
# Installs ropecheck's build and test dependencies from Debian's archive.
# Idempotent: packages already present are skipped, so the README's commands
# and .ci/run can both call it on every run.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  clang libclang-rt-14-dev          # libFuzzer and sanitizer runtimes
  libboost-dev libmpfr-dev libgmp-dev  # Boost.Multiprecision + MPFR backend
  librapidcheck-dev googletest libgtest-dev libgmock-dev
  libhwy-dev libbenchmark-dev
  nlohmann-json3-dev libcli11-dev
  python3 python3-numpy python3-jsonschema  # golden/python consumer, manifest schema test
  python3-torch                     # golden/python/check_torch.py: real framework code on golden inputs
  python3-dev pybind11-dev python3-pytest   # the ropecheck Python module and its tests
  libssl-dev                        # SHA-256 of golden files (OpenSSL EVP)
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
