// SPDX-License-Identifier: MIT
// A golden case's qk-norm (ABI 1.5): the definitions of golden/fused/qk_norm_golden.h.
#include "golden/fused/qk_norm_golden.h"

#include <cmath>
#include <stdexcept>

#include "core/config/json_reader.h"
#include "core/judge/qk_norm_judge.h"
#include "core/judge/reference_result.h"
#include "golden/catalog/catalog.h"
#include "golden/formats/storage_dtype.h"
#include "reference/real.h"
#include "reference/rounding.h"
#include "ropecheck/dtype.h"
#include "ropecheck/float_compare.h"

namespace ropecheck::golden {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

const char* form_name(ropecheck_norm_weight_form_t f) {
  return f == ROPECHECK_NORM_WEIGHT_ONE_PLUS_W ? "one_plus_w" : "w";
}
const char* intermediate_name(ropecheck_norm_intermediate_t i) {
  switch (i) {
    case ROPECHECK_NORM_ROUND_BEFORE_WEIGHT: return "round_before_weight";
    case ROPECHECK_NORM_ROUND_AFTER_WEIGHT: return "round_after_weight";
    default: return "keep_f32";
  }
}

double round_exactly(double v, ropecheck_dtype_t t) { return ref::round_to_dtype(ref::Real(v), t); }

// v rounded to the case dtype, certified: every value within `err` of v
// (the reference double's own error) rounds the same, so the rounding is
// the exact value's.
double certified_rounding(double v, double err, ropecheck_dtype_t t, const std::string& label, const std::string& what) {
  const double r = round_exactly(v, t);
  if (!exactly_equal(round_exactly(v - err, t), r) || !exactly_equal(round_exactly(v + err, t), r))
    throw std::logic_error(label + ": the expected value " + format_hex_float(v) + " (reference error " + format_hex_float(err) + ") of " + what +
                           " lies within the reference double's error of a rounding boundary of " +
                           std::string(dtype_name(t)) + "; the suite must not contain such a case");
  return r;
}

}  // namespace

ropecheck_norm_policy_t GoldenNorm::policy() const {
  return ropecheck_norm_policy_t{sizeof(ropecheck_norm_policy_t), 1u << norm.form,
                                 static_cast<std::uint32_t>(intermediate), 0u, rsqrt_max_ulp};
}

GoldenNorm make_golden_norm(const Case& c, ropecheck_norm_weight_form_t form,
                            ropecheck_norm_intermediate_t intermediate) {
  GoldenNorm n;
  n.intermediate = intermediate;
  ropecheck_norm_policy_t only{sizeof(ropecheck_norm_policy_t), 1u << form, static_cast<std::uint32_t>(intermediate),
                               0u, 1.0};
  n.norm = qk_norm_case(c, only);
  return n;
}

NormedExpected normed_expected(const Case& c, const QkBuffers& in, const GoldenNorm& n, double attention_factor,
                               const std::string& label) {
  const NormedReference ref = normed_reference(c, in, n.norm);
  const NormPolicy np = norm_policy_of(n.policy(), n.norm.form);
  const Geometry g = geometry(c);
  NormedExpected out;
  for (int w = 0; w < 2; ++w) {
    out.rounded[static_cast<std::size_t>(w)] = in.bytes[static_cast<std::size_t>(w)];
    out.exact[static_cast<std::size_t>(w)].assign(static_cast<std::size_t>(g.elements[static_cast<std::size_t>(w)]), 0.0);
  }
  for (const BudgetPolicy& bp : budget_policies()) {
    const ErrorModel em = case_error_model(bp.policy, c, attention_factor);
    std::array<std::vector<double>, 2> b;
    for (int w = 0; w < 2; ++w) b[static_cast<std::size_t>(w)].assign(out.exact[static_cast<std::size_t>(w)].size(), 0.0);
    const std::vector<NormedElement> es = normed_elements(c, in, n.norm, ref, {.rotation = em, .norm = np});
    for (const NormedElement& e : es) {
      if (!std::isfinite(e.budget))
        throw std::logic_error(label + ": non-finite budget; the suite must not contain such a case");
      b[static_cast<std::size_t>(e.w)][static_cast<std::size_t>(e.offset)] = e.budget;
    }
    out.budgets.push_back(std::move(b));
    if (out.budgets.size() > 1) continue;
    // The exact values (the same for every policy), once.
    for (const NormedElement& e : es) {
      if (!std::isfinite(e.value))
        throw std::logic_error(label + ": non-finite expected value; the suite must not contain such a case");
      // The reference's error: the normalised values rounded to doubles
      // (2^-53 relative each) carried through the rotation, and the result's
      // own rounding to a double; twice that, for margin.
      const double c_abs = std::fabs(e.terms.cos_a), s_abs = std::fabs(e.terms.sin_a);
      const double carried = e.terms.side == 0 ? std::fabs(e.terms.x) * c_abs + std::fabs(e.terms.y) * s_abs
                                               : std::fabs(e.terms.x) * s_abs + std::fabs(e.terms.y) * c_abs;
      const double err = e.rotated ? (std::fabs(e.value) + std::fabs(attention_factor) * carried) * 0x1p-52
                                   : std::fabs(e.value) * 0x1p-52;
      const std::string what = std::string(e.w == 0 ? "q" : "k") + "[token " + std::to_string(e.token) + ", head " +
                               std::to_string(e.head) + ", channel " + std::to_string(e.channel) + "]";
      store_value(out.rounded[static_cast<std::size_t>(e.w)].data(), e.offset, c.dtype,
                  certified_rounding(e.value, err, c.dtype, label, what));
      out.exact[static_cast<std::size_t>(e.w)][static_cast<std::size_t>(e.offset)] = e.value;
    }
  }
  return out;
}

std::vector<Tensor> norm_tensors(const Case& c, const GoldenNorm& n) {
  std::vector<Tensor> out;
  static const char* kNames[] = {"q_norm_weight", "k_norm_weight"};
  for (int w = 0; w < 2; ++w) {
    const ByteBuffer b = weight_bytes(c, n.norm, w);
    out.push_back(Tensor{kNames[w], storage_tensor_dtype(c.dtype), {c.shape.head_dim}, {b.begin(), b.end()}});
  }
  return out;
}

std::vector<std::string> norm_flags(const GoldenNorm& n) {
  std::vector<std::string> f{"QkNorm"};
  if (n.norm.form == ROPECHECK_NORM_WEIGHT_ONE_PLUS_W) f.push_back("QkNormOnePlusW");
  if (n.intermediate != ROPECHECK_NORM_KEEP_F32) f.push_back("QkNormRoundedIntermediate");
  return f;
}

ordered_json norm_to_json(const GoldenNorm& n) {
  return {{"weightForm", form_name(n.norm.form)},
          {"eps", static_cast<double>(n.norm.eps)},
          {"epsHex", format_hex_float(static_cast<double>(n.norm.eps))},
          {"intermediate", intermediate_name(n.intermediate)},
          {"rsqrtMaxUlp", n.rsqrt_max_ulp}};
}

GoldenNorm parse_qk_norm(const json& j, const std::string& file, const std::string& path) {
  if (!j.is_object()) bad(file, path, "must be an object");
  const JsonReader r(j, path + ".");
  GoldenNorm n;
  const std::string form = r.string("weightForm");
  if (form != "w" && form != "one_plus_w") bad(file, path + ".weightForm", "must be w or one_plus_w");
  n.norm.form = form == "w" ? ROPECHECK_NORM_WEIGHT_W : ROPECHECK_NORM_WEIGHT_ONE_PLUS_W;
  double eps = 0;
  if (!parse_hex_float(r.string("epsHex"), &eps) || !(eps > 0) || !std::isfinite(eps) ||
      !exactly_equal(static_cast<double>(static_cast<float>(eps)), eps))
    bad(file, path + ".epsHex", "must be a positive finite fp32 value as a hex float (ABI 1.5's eps is a float)");
  n.norm.eps = static_cast<float>(eps);
  const std::string inter = r.string("intermediate");
  bool known = false;
  for (int i = 0; i < ROPECHECK_NORM_INTERMEDIATE_COUNT; ++i)
    if (inter == intermediate_name(static_cast<ropecheck_norm_intermediate_t>(i)))
      n.intermediate = static_cast<ropecheck_norm_intermediate_t>(i), known = true;
  if (!known) bad(file, path + ".intermediate", "must be keep_f32, round_before_weight or round_after_weight");
  n.rsqrt_max_ulp = r.number("rsqrtMaxUlp");
  if (!(n.rsqrt_max_ulp >= 0.5 && n.rsqrt_max_ulp <= 16))
    bad(file, path + ".rsqrtMaxUlp", "must be in [0.5, 16] (ropecheck_norm_policy_t's bound)");
  return n;
}

GoldenNorm read_golden_norm(const GoldenNorm& declared, const Case& c, const std::vector<Tensor>& ts,
                            const std::string& where) {
  GoldenNorm n = declared;
  static const char* kNames[] = {"q_norm_weight", "k_norm_weight"};
  for (int w = 0; w < 2; ++w) {
    const Tensor* t = nullptr;
    for (const Tensor& x : ts)
      if (x.name == kNames[w]) t = &x;
    if (!t) throw FormatError(where, std::string("tensor '") + kNames[w] + "'", "missing (a case with a qkNorm holds it)");
    if (t->dtype != storage_tensor_dtype(c.dtype) || t->shape != std::vector<std::int64_t>{c.shape.head_dim})
      throw FormatError(where, std::string("tensor '") + kNames[w] + "'",
                        std::string("must be [head_dim] in the case dtype ") + std::string(dtype_name(c.dtype)));
    std::vector<double>& into = n.norm.weight[static_cast<std::size_t>(w)];
    into.clear();
    for (int j = 0; j < c.shape.head_dim; ++j) {
      const double v = t->value(j);
      if (!std::isfinite(v))
        throw FormatError(where, std::string("tensor '") + kNames[w] + "' element " + std::to_string(j),
                          "must be finite");
      into.push_back(v);
    }
  }
  return n;
}

}  // namespace ropecheck::golden
