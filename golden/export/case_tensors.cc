// SPDX-License-Identifier: MIT
// What a golden case file holds that follows from the case's inputs: the definitions of golden/export/case_tensors.h.
#include "golden/export/case_tensors.h"

#include <array>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "core/error_model/error_model.h"
#include "golden/catalog/catalog.h"
#include "golden/fused/cos_sin_cache_golden.h"
#include "golden/fused/kv_golden.h"
#include "golden/formats/storage_dtype.h"
#include "golden/fused/qk_norm_golden.h"
#include "ropecheck/dtype.h"

namespace ropecheck::golden {
namespace {

void require_finite(double v, const std::string& label, const char* what) {
  if (!std::isfinite(v))
    throw std::logic_error(label + ": non-finite " + std::string(what) + "; the suite must not contain such a case");
}

// The positions as written: [tokens] for 1D; [num_axes, tokens], axis-major
// (the ABI's rows, ropecheck_apply_params_t), for multi-axis cases, whose
// Case holds them token-major.
Tensor positions_tensor(const Case& c) {
  if (!c.axes.multi()) return i64_tensor("positions", {c.tokens}, c.positions);
  const int n = c.axis_count();
  std::vector<std::int64_t> rows;
  rows.reserve(c.positions.size());
  for (int a = 0; a < n; ++a)
    for (std::int64_t t = 0; t < c.tokens; ++t) rows.push_back(c.position(t, a));
  return i64_tensor("positions", {n, c.tokens}, rows);
}

}  // namespace

CaseTensors derive_case_tensors(const Case& c, const QkBuffers& in, const std::string& label, FusedParts parts) {
  return derive_case_tensors(c, in, compute_reference(c, in), label, parts);
}

CaseTensors derive_case_tensors(const Case& c, const QkBuffers& in, const ReferenceResult& r, const std::string& label,
                                FusedParts parts) {
  const auto [kv, norm] = parts;
  const Geometry geo = geometry(c);
  CaseTensors out;
  out.attention_factor = r.attention_factor;
  out.flags = derive_flags(c, in);
  const int pairs = c.shape.rotary_dim / 2;
  static const char* kQk[] = {"q", "k"};
  std::array<std::vector<std::int64_t>, 2> shape;
  for (int w = 0; w < 2; ++w) {
    shape[w] = {c.tokens, geo.heads[w], c.shape.head_dim};
    Tensor t{kQk[w], storage_tensor_dtype(c.dtype), shape[w], {in.bytes[w].begin(), in.bytes[w].end()}};
    out.tensors.push_back(std::move(t));
  }
  out.tensors.push_back(positions_tensor(c));
  // A qk-norm case's expected values and budgets: the normalised values
  // rotated, judged as the gate's NormalisesEachHeadThenRotates judges.
  const std::optional<NormedExpected> normed =
      norm ? std::optional<NormedExpected>(normed_expected(c, in, *norm, r.attention_factor, label)) : std::nullopt;
  for (int w = 0; w < 2; ++w) {
    Tensor e{std::string(kQk[w]) + "_expected", storage_tensor_dtype(c.dtype), shape[w], {in.bytes[w].begin(), in.bytes[w].end()}};
    std::vector<double> e64(static_cast<std::size_t>(geo.elements[w]));
    if (normed) {
      e.bytes.assign(normed->rounded[w].begin(), normed->rounded[w].end());
      e64 = normed->exact[w];
    } else {
      for (std::size_t i = 0; i < e64.size(); ++i) e64[i] = load_as_double(in.bytes[w].data(), i, c.dtype);
      for (const ReferenceElement& x : r.elements(w)) {
        require_finite(x.rounded, label, "expected value");
        store_value(e.bytes.data(), x.offset, c.dtype, x.rounded);
        e64[static_cast<std::size_t>(x.offset)] = x.terms.value;
      }
    }
    out.tensors.push_back(std::move(e));
    out.tensors.push_back(f64_tensor(std::string(kQk[w]) + "_expected_f64", shape[w], e64));
  }
  out.tensors.push_back(f64_tensor("inv_freq", {pairs}, r.inv_freq));
  if (c.axes.multi())
    out.tensors.push_back(i64_tensor("pair_axis", {pairs}, {r.pair_axes.axis.begin(), r.pair_axes.axis.end()}));
  out.tensors.push_back(f64_tensor("angle", {c.tokens, pairs}, r.angle));
  out.tensors.push_back(f64_tensor("cos", {c.tokens, pairs}, r.cos));
  out.tensors.push_back(f64_tensor("sin", {c.tokens, pairs}, r.sin));
  const auto policies = budget_policies();
  for (std::size_t p = 0; p < policies.size(); ++p) {
    const BudgetPolicy& bp = policies[p];
    // A case reading the caller's cache: a reader's budgets (E4c).
    const ErrorModel model = case_error_model(bp.policy, c, r.attention_factor, c.caller_cache_dtype);
    for (int w = 0; w < 2; ++w) {
      std::vector<double> b(static_cast<std::size_t>(geo.elements[w]), 0.0);
      if (normed) {
        b = normed->budgets[p][w];
      } else {
        for (const ReferenceElement& x : r.elements(w)) {
          const double v = model.budget(x.terms);
          require_finite(v, label, "budget");
          b[static_cast<std::size_t>(x.offset)] = v;
        }
      }
      out.tensors.push_back(f64_tensor(std::string(kQk[w]) + "_budget_" + bp.name, shape[w], b));
    }
  }
  if (norm) {
    for (std::string& f : norm_flags(*norm)) out.flags.push_back(std::move(f));
    for (Tensor& t : norm_tensors(c, *norm)) out.tensors.push_back(std::move(t));
  }
  if (c.caller_cache_dtype) {
    for (std::string& f : cos_sin_cache_flags(c)) out.flags.push_back(std::move(f));
    out.tensors.push_back(cos_sin_cache_tensor(c));
  }
  if (kv) {
    for (std::string& f : kv_flags(c, in, r, *kv)) out.flags.push_back(std::move(f));
    std::vector<Tensor> more = kv_case_tensors(c, in, r, *kv, label);
    out.tensors.insert(out.tensors.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  }
  return out;
}

}  // namespace ropecheck::golden
