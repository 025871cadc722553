// SPDX-License-Identifier: MIT
// Gates one registered kernel on the first cases of the quick suite through
// the installed headers and libraries (the gate with every property);
// exit code 0 means the export works.
#include <cstdio>

#include "ropecheck/gate/gate.h"
#include "ropecheck/impls/registry.h"

int main() {
  const ropecheck_impl_t* impl = ropecheck::find_impl("scalar_naive");
  if (!impl) return 3;
  ropecheck::GateOptions o;
  o.cases = 3;
  o.impls = {impl};
  const ropecheck::GateReport r = ropecheck::run_gate(o);
  std::printf("consumer: %d cases, %s\n", r.cases, r.passed() ? "pass" : "FAIL");
  return r.passed() && r.cases == 3 ? 0 : 1;
}
