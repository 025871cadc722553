// SPDX-License-Identifier: MIT
// The config bugs of the model zoo (#21; mutants/config_mutants.h) are
// killed by the default gate (every property, quick suite, seed 1) on the
// zoo config of the model they were published against, where the clean
// control passes; and the catalogue's YaRN "attention factor applied
// twice" (TensorRT-LLM PR #16378) is killed on gpt-oss's config.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "core/config/model_rope.h"
#include "gate/gate.h"
#include "mutants/config_mutants.h"
#include "mutants/mutant_kernel.h"
#include "mutants/mutant_list.h"

namespace ropecheck {
namespace {

GateReport gate_on_zoo(const std::string& family, const ropecheck_impl_t* impl) {
  GateOptions o;
  o.suite = Suite::kQuick;
  o.seed = 1;
  o.cases = 16;  // every variant of a config (at most 4 per layer type here) several times
  o.configs = config_variants(read_model_rope_file(std::string(ROPECHECK_ZOO_DIR) + "/" + family + ".json"));
  o.impls = {impl};
  o.isolated = false;
  return run_gate(o);
}

std::string failures_of(const GateReport& r) {
  std::ostringstream os;
  print_failures(r, os);
  return os.str();
}

TEST(ZooMutants, EachConfigBugIsKilledOnItsModelsConfigWhereTheControlPasses) {
  for (const mutant::ConfigBugInfo& b : mutant::config_bugs()) {
    const GateReport control = gate_on_zoo(b.zoo_config, mutant::mutant_impl(mutant::Bug::none));
    EXPECT_TRUE(control.passed()) << b.zoo_config << ": the control fails\n" << failures_of(control);
    const GateReport r = gate_on_zoo(b.zoo_config, mutant::config_mutant_impl(b.bug));
    EXPECT_FALSE(r.passed()) << b.name << " survives the gate on " << b.zoo_config;
  }
}

TEST(ZooMutants, YarnAttentionFactorTwiceIsKilledOnGptOss) {
  const GateReport r = gate_on_zoo("gpt-oss-20b", mutant::mutant_impl(mutant::Bug::yarn_attention_factor_twice));
  EXPECT_FALSE(r.passed());
}

}  // namespace
}  // namespace ropecheck
