// Gates one registered kernel on the first cases of the quick suite through
// the installed headers and libraries; exit code 0 means the export works.
#include <cstdio>

#include "ropecheck/conformance.h"
#include "ropecheck/registry.h"

int main() {
  const ropecheck_impl_t* impl = ropecheck::find_impl("scalar_naive");
  if (!impl) return 3;
  int failed = 0, run = 0;
  for (int i = 0; i < 5; ++i) {
    const ropecheck::CaseRunner runner(ropecheck::make_case(ropecheck::Suite::kQuick, 1, i));
    const ropecheck::CaseOutcome out = runner.run(*impl);
    run += out.outcome != ropecheck::Outcome::kSkipped;
    failed += out.outcome == ropecheck::Outcome::kFail;
  }
  std::printf("consumer: %d cases run, %d failed\n", run, failed);
  return failed == 0 && run > 0 ? 0 : 1;
}
