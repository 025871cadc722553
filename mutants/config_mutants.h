// SPDX-License-Identifier: MIT
// The config bugs of the model zoo (issue #21): a port that reads the
// model's config.json wrong. Each kernel is the catalogue's clean control
// (mutant_impl(Bug::none)) called with the rope config as the buggy port
// reads it, so the kernels carry no second copy of the formulas. They are
// not rows of mutant_list.h because the quick suite's own configs need not
// show them: each is killed by the default gate on the zoo config named in
// its row (gate/test/zoo_mutants_test.cc asserts it).
#ifndef ROPECHECK_MUTANTS_CONFIG_MUTANTS_H_
#define ROPECHECK_MUTANTS_CONFIG_MUTANTS_H_

#include <span>

#include "ropecheck/kernel_abi.h"

namespace ropecheck::mutant {

enum class ConfigBug { local_base_ignored, mscale_all_dim_dropped, truncate_ignored, longrope_switch_off_by_one };

struct ConfigBugInfo {
  ConfigBug bug;
  const char* name;         // implementation name: config_mutant_<bug>
  const char* description;  // the bug and where it was published
  const char* zoo_config;   // golden/zoo/<this>.json kills it
};
std::span<const ConfigBugInfo> config_bugs();
const ropecheck_impl_t* config_mutant_impl(ConfigBug bug);

}  // namespace ropecheck::mutant

#endif  // ROPECHECK_MUTANTS_CONFIG_MUTANTS_H_
