// SPDX-License-Identifier: MIT
// A Python callable as an implementation under test: the definitions of python/module/python_kernel.h.
#include "python/module/python_kernel.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "core/config/config.h"
#include "core/config/hf_config.h"
#include "impls/kernel_support/abi_check.h"
#include "impls/kernel_support/impl_table.h"
#include "impls/kernel_support/token_offsets.h"
#include "python/module/kv_cache_bridge.h"
#include "reference/freq_spec.h"
#include "ropecheck/kv_write.h"
#include "ropecheck/names.h"

namespace ropecheck::python {
namespace {

py::object json_to_python(const std::string& text) { return py::module_::import("json").attr("loads")(text); }

std::string dtype_text(const py::dtype& d) { return py::cast<std::string>(d.attr("name")); }

std::string shape_text(const py::array& a) {
  std::string s = "(";
  for (py::ssize_t i = 0; i < a.ndim(); ++i) s += (i ? ", " : "") + std::to_string(a.shape(i));
  return s + (a.ndim() == 1 ? ",)" : ")");
}

// The callable's result for one tensor as a fresh host array of the shape
// and dtype the call requires; anything else is a broken calling convention.
py::array checked_result(const py::handle& obj, const char* name, const StridedView& v, const ArrayKind& kind) {
  if (obj.is_none()) throw KernelContractError(std::string("the kernel returned None for ") + name);
  const py::array a = to_host_copy(obj, v.dtype, kind);
  const py::dtype want = result_dtype(v.dtype);
  const bool shape_ok = a.ndim() == 3 && a.shape(0) == v.tokens && a.shape(1) == v.heads && a.shape(2) == v.head_dim;
  if (!shape_ok || !a.dtype().is(want))
    throw KernelContractError(std::string("the kernel returned ") + name + " of shape " + shape_text(a) +
                              " and dtype " + dtype_text(a.dtype()) + "; expected [tokens, heads, head_dim] = (" +
                              std::to_string(v.tokens) + ", " + std::to_string(v.heads) + ", " +
                              std::to_string(v.head_dim) + ") of " + dtype_text(want) +
                              (kind.torch ? " (torch results come back through .cpu())" : ""));
  return a;
}

}  // namespace

RopeCall rope_call(const ropecheck_apply_params_t& p) {
  RopeCall r;
  r.head_dim = p.head_dim;
  r.rotary_dim = p.rotary_dim;
  r.layout = std::string(layout_name(static_cast<ropecheck_layout_t>(p.layout)));
  r.direction = p.direction == ROPECHECK_DIRECTION_INVERSE ? "inverse" : "forward";
  r.dtype = std::string(dtype_name(static_cast<ropecheck_dtype_t>(p.dtype)));
  RopeConfig c;
  c.freq = ref::FreqSpec::from_abi(*p.freq, p.rotary_dim);
  c.shape = {p.head_dim, p.rotary_dim};
  c.layout = static_cast<ropecheck_layout_t>(p.layout);
  r.scheme = std::string(scheme_name(c.freq.scheme));
  r.seq_len = c.freq.seq_len;
  r.config = json_to_python(config_to_json(c));
  const auto hf = config_to_hf_json(c);
  r.hf_config = hf ? json_to_python(*hf) : py::none();
  if (impl::axes_of(&p) > 0) {
    r.num_axes = p.num_axes;
    r.axis_assignment = p.axis_assignment == ROPECHECK_AXES_INTERLEAVED ? "interleaved"
                        : p.axis_assignment == ROPECHECK_AXES_TABLE     ? "table"
                                                                        : "sections";
    r.axis_frequencies = std::string(axis_frequencies_name(p.axis_frequencies));
    if (p.axis_assignment == ROPECHECK_AXES_TABLE)
      r.pair_axis.assign(p.pair_axis, p.pair_axis + p.rotary_dim / 2);
    else
      r.axis_sections.assign(p.axis_sections, p.axis_sections + p.num_axes);
  }
  return r;
}

PythonKernel::PythonKernel(py::object fn, PythonKernelOptions options) : fn_(std::move(fn)), o_(std::move(options)) {
  table_ = impl::kernel_table(o_.name.c_str(), o_.description.c_str(), o_.caps, o_.policy, &PythonKernel::apply,
                              nullptr, nullptr, this);
  table_.max_position = o_.max_position;
  if (fused()) table_.kv_policy = o_.kv_policy;  // K and V caches only (kv_cache_kinds 0)
}

ropecheck_status_t PythonKernel::apply(void* ctx, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  auto* self = static_cast<PythonKernel*>(ctx);
  if (auto st = impl::check_apply(self->o_.caps, p, err, n)) return st;
  return self->call(*p, err, n);
}

namespace {

// The call's positions as the kernel receives them: [tokens], or
// [num_axes, tokens] for a multi-axis call (ABI 1.3).
py::array_t<std::int64_t> call_positions(const ropecheck_apply_params_t& p) {
  const int axes = impl::axes_of(&p);
  py::array_t<std::int64_t> positions(axes > 0 ? std::vector<py::ssize_t>{axes, p.num_tokens}
                                                : std::vector<py::ssize_t>{p.num_tokens});
  std::int64_t* out = positions.mutable_data();
  for (int a = 0; a < std::max(axes, 1); ++a)
    for (std::int64_t t = 0; t < p.num_tokens; ++t) out[a * p.num_tokens + t] = impl::position_at(&p, t, a);
  return positions;
}

ropecheck_status_t refuse(char* err, std::size_t n, const std::string& why) {
  std::snprintf(err, n, "%s", why.c_str());
  return ROPECHECK_INTERNAL_ERROR;
}

}  // namespace

ropecheck_status_t PythonKernel::call(const ropecheck_apply_params_t& p, char* err, std::size_t n) {
  const auto dtype = static_cast<ropecheck_dtype_t>(p.dtype);
  const impl::TensorStrides qs = impl::q_strides(p), ks = impl::k_strides(p);
  const StridedView views[2] = {
      {p.q_in, p.q_out, p.num_tokens, p.num_q_heads, p.head_dim, qs.token, qs.head, dtype, qs.seq_len, qs.seq},
      {p.k_in, p.k_out, p.num_tokens, p.num_kv_heads, p.head_dim, ks.token, ks.head, dtype, ks.seq_len, ks.seq}};
  CallArrays a{views, dtype, {}, {}, {}};
  for (int w = 0; w < 2; ++w) {
    a.host_in[w] = dense_copy(views[w]);
    a.pristine[w] = dense_copy(views[w]);
    a.arg[w] = to_kernel_array(a.host_in[w], dtype, o_.arrays);
  }
  const py::array_t<std::int64_t> positions = call_positions(p);
  const py::array positions_before = py::module_::import("numpy").attr("array")(positions, py::arg("copy") = true);
  const py::object pos_arg = o_.arrays.torch
                                 ? to_kernel_array(positions, ROPECHECK_DTYPE_F64, ArrayKind{true, o_.arrays.device})
                                 : py::object(positions);
  // ABI 1.4: a fused kernel's cache write, the fifth argument (None for a
  // call without one).
  const ropecheck_kv_write_t* kw = kv_write_of(p);
  if (kw != nullptr)  // the door's limit, not the kernel's choice: never a declined case
    if (const std::string why = kv_door_refusal(p, *kw); !why.empty()) return refuse(err, n, why);
  std::optional<KvHandOff> kv;
  if (kw != nullptr) kv = hand_over(p, *kw, o_.arrays);
  py::object result;
  if (const ropecheck_status_t st = invoke(p, {a.arg[0], a.arg[1], pos_arg, kv ? &*kv : nullptr}, &result, err, n))
    return st;
  py::array got[2];
  if (const std::string why = take_outputs(result, a, got); !why.empty()) return refuse(err, n, why);
  if (!same_bits(to_host_copy(pos_arg, ROPECHECK_DTYPE_F64, ArrayKind{o_.arrays.torch, "cpu"}), positions_before))
    return refuse(err, n, "the kernel modified its input positions");
  if (kv) {
    if (const std::string changed = changed_kv_input(*kv, p, o_.arrays); !changed.empty())
      return refuse(err, n, "the kernel modified its input " + changed);
    take_back_caches(*kv, p, *kw, o_.arrays);
  }
  for (int w = 0; w < 2; ++w)
    if (views[w].heads > 0) write_back(got[w], views[w]);
  return ROPECHECK_OK;
}

ropecheck_status_t PythonKernel::invoke(const ropecheck_apply_params_t& p, const KernelArgs& args, py::object* result,
                                        char* err, std::size_t n) {
  try {
    if (fused())
      *result = fn_(args.q, args.k, args.positions, py::cast(rope_call(p)),
                    args.kv != nullptr ? py::cast(args.kv->call) : py::none());
    else
      *result = fn_(args.q, args.k, args.positions, py::cast(rope_call(p)));
  } catch (py::error_already_set& e) {
    if (e.matches(PyExc_KeyboardInterrupt)) throw;
    // ropecheck.Unsupported("why"): the kernel declines this case (every
    // Python kernel's table grants ABI 1.7's MAY_DECLINE): a skip counted
    // by its reason, never a failure.
    if (e.matches(py::module_::import("ropecheck._core").attr("Unsupported"))) {
      std::snprintf(err, n, "%s", std::string(py::str(e.value())).c_str());
      return ROPECHECK_UNSUPPORTED;
    }
    tracebacks_.push_back(e.what());
    std::snprintf(err, n, "the kernel raised %s (traceback in the result's errors)",
                  std::string(py::str(e.value())).substr(0, 300).c_str());
    return ROPECHECK_INTERNAL_ERROR;
  }
  return ROPECHECK_OK;
}

std::string PythonKernel::take_outputs(const py::object& result, const CallArrays& a, py::array (&got)[2]) const {
  const char* names[2] = {"q", "k"};
  if (o_.in_place) {
    if (!result.is_none()) throw KernelContractError("a kernel declared in_place must return None");
    for (int w = 0; w < 2; ++w) got[w] = checked_result(a.arg[w], names[w], a.views[w], o_.arrays);
    return {};
  }
  if (!py::isinstance<py::tuple>(result) && !py::isinstance<py::list>(result))
    throw KernelContractError("the kernel must return (q_out, k_out), got " +
                              std::string(py::str(py::type::of(result).attr("__name__"))));
  const py::sequence seq = result;
  if (py::len(seq) != 2)
    throw KernelContractError("the kernel must return (q_out, k_out): 2 items, got " + std::to_string(py::len(seq)));
  for (int w = 0; w < 2; ++w) got[w] = checked_result(seq[static_cast<std::size_t>(w)], names[w], a.views[w], o_.arrays);
  // An out-of-place kernel must not touch what it was given.
  for (int w = 0; w < 2; ++w)
    if (!same_bits(to_host_copy(a.arg[w], a.dtype, o_.arrays), a.pristine[w]))
      return std::string("the kernel modified its input ") + names[w] +
             " (declare in_place=True if it rotates in place)";
  return {};
}

}  // namespace ropecheck::python
