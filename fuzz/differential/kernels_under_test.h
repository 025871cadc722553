// SPDX-License-Identifier: MIT
// The kernels the differential fuzzer judges, from its environment:
//   ROPECHECK_FUZZ_IMPL=<name>       one kernel: a built-in one (`ropecheck
//                                    list`, the default set or not), a
//                                    mutant of the bug catalogue
//                                    (mutants/mutant_list.h), or with a
//                                    plugin, that plugin's kernel of the name
//   ROPECHECK_FUZZ_PLUGIN=<path>     the kernels of a plugin
//   ROPECHECK_FUZZ_ISOLATION=<mode>  how a plugin's kernels run: worker (the
//                                    default, as `ropecheck check` runs
//                                    them: a persistent worker process,
//                                    guarded copies), fork (a child per
//                                    call) or none (in this process: a
//                                    crash is then libFuzzer's finding)
// Without ROPECHECK_FUZZ_IMPL: every kernel of the default set (or of the
// plugin). Built-in kernels and mutants run in this process, under the
// fuzz build's sanitizers. A bad selection aborts naming it.
#ifndef ROPECHECK_FUZZ_DIFFERENTIAL_KERNELS_UNDER_TEST_H_
#define ROPECHECK_FUZZ_DIFFERENTIAL_KERNELS_UNDER_TEST_H_

#include <string>
#include <vector>

#include "ropecheck/kernel_abi.h"

namespace ropecheck::fuzz {

struct KernelsUnderTest {
  std::vector<const ropecheck_impl_t*> impls;
  bool multi_axis = false;  // some kernel takes multi-axis positions (ABI 1.3)
  std::string isolation;    // "" for kernels in this process, else the mode
};

KernelsUnderTest kernels_under_test();

}  // namespace ropecheck::fuzz

#endif  // ROPECHECK_FUZZ_DIFFERENTIAL_KERNELS_UNDER_TEST_H_
