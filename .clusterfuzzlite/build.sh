#!/bin/bash -eu
# SPDX-License-Identifier: MIT
# ClusterFuzzLite / OSS-Fuzz build: compiles the harnesses and the libraries
# they use with the engine's compiler and flags ($CC $CXX $CFLAGS $CXXFLAGS),
# links them with $LIB_FUZZING_ENGINE, and places each harness with its seed
# corpus (<name>_seed_corpus.zip) and dictionary (<name>.dict) in $OUT.
src=${SRC}/ropecheck
build=${WORK:-/tmp}/ropecheck-build
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
  -DROPECHECK_LIB_FUZZING_ENGINE="$LIB_FUZZING_ENGINE" \
  -DROPECHECK_CUDA=OFF -DROPECHECK_BUILD_BENCH=OFF -DROPECHECK_BUILD_CLI=OFF -DROPECHECK_WERROR=OFF
cmake --build "$build" --target fuzzers
for harness in "$build"/fuzz/*_fuzzer; do
  name=$(basename "$harness")
  cp "$harness" "$OUT/"
  (cd "$src/fuzz/corpus/$name" && zip -q -r "$OUT/${name}_seed_corpus.zip" .)
  dict="$src/fuzz/dict/${name%_fuzzer}.dict"
  [[ -f "$dict" ]] && cp "$dict" "$OUT/${name}.dict"
done
