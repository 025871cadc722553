// SPDX-License-Identifier: MIT
#pragma once
// Paths of this build, compiled into one small file generated from
// build_paths.cc.in: as -D flags of the subcommands that read them they would
// differ between build trees, and every such file would be a ccache miss in a
// second tree of the same sources (the `pip install .` build beside
// build/release, cmake/RopecheckCcache.cmake).
namespace ropecheck::cli {

const char* source_dir();  // the repository this command was built from (golden/zoo, fuzz/corpus)
const char* mutant_dir();  // this build tree's mutant plugins (mutants/plugins)

}  // namespace ropecheck::cli
