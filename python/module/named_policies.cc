#include "python/module/named_policies.h"

#include <pybind11/pybind11.h>

namespace py = pybind11;

namespace ropecheck::python {
namespace {

// Declared by kernels, never exported. Each names the code it describes.
const golden::BudgetPolicy kDeclareOnly[] = {
    {"f32_sleef_u35",
     "as f32_angle_product with sin/cos within 3.5 ulps: SLEEF's *_u35 functions (SLEEF documents "
     "Sleef_sinf_u35 and Sleef_cosf_u35 at 3.5 ULP), which PyTorch's at::vec Vectorized<float>::sin/cos call: "
     "torch.compile's Inductor CPU code",
     with_libm_ulps(libm_policy(ROPECHECK_DTYPE_F32, ROPECHECK_ANGLE_F32_PRODUCT, ROPECHECK_DTYPE_F32,
                                ROPECHECK_DTYPE_F32),
                    3.5, 0)},
};

}  // namespace

std::vector<golden::BudgetPolicy> named_policies() {
  std::vector<golden::BudgetPolicy> v(golden::budget_policies().begin(), golden::budget_policies().end());
  v.insert(v.end(), std::begin(kDeclareOnly), std::end(kDeclareOnly));
  return v;
}

Policy policy_named(const std::string& name) {
  std::string known;
  for (const auto& p : named_policies()) {
    if (name == p.name) return p.policy;
    known += std::string(known.empty() ? "" : ", ") + p.name;
  }
  throw py::value_error("policy: unknown policy '" + name + "' (known: " + known + ")");
}

}  // namespace ropecheck::python
