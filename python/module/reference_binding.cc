// SPDX-License-Identifier: MIT
// ropecheck.reference and ropecheck.config_from_hf: the definitions of python/module/reference_binding.h.
#include "python/module/reference_binding.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "core/cases/buffers.h"
#include "core/config/config.h"
#include "core/error_model/error_model.h"
#include "core/config/hf_config.h"
#include "core/judge/reference_result.h"
#include "python/module/array_bridge.h"
#include "python/module/named_policies.h"
#include "ropecheck/dtype.h"

namespace ropecheck::python {
namespace {

ropecheck_dtype_t storage_of(const std::string& name) {
  ropecheck_dtype_t t;
  if (!parse_dtype(name, &t)) throw py::value_error("dtype: must be f32, f16, bf16 or f64 (got '" + name + "')");
  return t;
}

py::array f64_like(const Geometry& g, int w, const std::vector<double>& by_offset) {
  py::array_t<double> a(std::vector<py::ssize_t>{g.tokens, g.heads[w], g.head_dim});
  for (std::int64_t t = 0; t < g.tokens; ++t)
    for (int h = 0; h < g.heads[w]; ++h)
      for (int j = 0; j < g.head_dim; ++j)
        a.mutable_at(t, h, j) = by_offset[static_cast<std::size_t>(g.offset(w, t, h, j))];
  return a;
}

// The arrays and options of one ropecheck.reference call.
struct ReferenceArgs {
  py::array q, k, positions;
  std::string layout, dtype, direction;
};

// The case the call describes, its options validated by name.
Case reference_case(const ReferenceArgs& a, const RopeConfig& config) {
  Case c;
  c.freq = config.freq;
  c.shape = config.shape;
  ropecheck_layout_t l;
  if (!parse_layout(a.layout, &l)) throw py::value_error("layout: must be interleaved or half_split");
  c.layout = l;
  c.dtype = storage_of(a.dtype);
  if (a.direction != "forward" && a.direction != "inverse")
    throw py::value_error("direction: must be forward or inverse");
  c.direction = a.direction == "inverse" ? ROPECHECK_DIRECTION_INVERSE : ROPECHECK_DIRECTION_FORWARD;
  const py::array& q = a.q;
  const py::array& k = a.k;
  if (q.ndim() != 3 || k.ndim() != 3 || q.shape(0) != k.shape(0) || q.shape(2) != config.shape.head_dim ||
      k.shape(2) != config.shape.head_dim)
    throw py::value_error("q, k: must be [tokens, heads, head_dim] with head_dim " +
                          std::to_string(config.shape.head_dim) + " and the same tokens");
  const auto pos = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>(a.positions);
  if (pos.ndim() != 1 || pos.shape(0) != q.shape(0))
    throw py::value_error("positions: must be [tokens] = [" + std::to_string(q.shape(0)) + "]");
  c.tokens = q.shape(0);
  c.q_heads = static_cast<int>(q.shape(1));
  c.kv_heads = static_cast<int>(k.shape(1));
  c.positions.assign(pos.data(), pos.data() + pos.size());
  return c;
}

// q and k rounded to the case's dtype, in the case's buffers.
QkBuffers reference_inputs(const Case& c, const ReferenceArgs& a) {
  const Geometry g = geometry(c);
  QkBuffers in;
  const py::array src[2] = {a.q, a.k};
  for (int w = 0; w < 2; ++w) {
    in.bytes[w].resize(static_cast<std::size_t>(g.elements[w]) * g.esize);
    const py::array want = py::array::ensure(src[w].attr("astype")(result_dtype(c.dtype)), py::array::c_style);
    const StridedView v{nullptr, in.bytes[w].data(), c.tokens, g.heads[w], g.head_dim, g.token_stride[w],
                        g.head_stride[w], c.dtype};
    write_back(want, v);
  }
  return in;
}

// The exact result (q_f64, k_f64), it rounded to the dtype (q, k), and with a
// policy each element's budget (q_budget, k_budget).
py::dict reference_outputs(const Case& c, const QkBuffers& in, const std::optional<std::string>& policy) {
  const Geometry g = geometry(c);
  const ReferenceResult r = compute_reference(c, in);
  py::dict out;
  out["attention_factor"] = r.attention_factor;
  out["inv_freq"] = r.inv_freq;
  for (int w = 0; w < 2; ++w) {
    const std::string n = w == 0 ? "q" : "k";
    std::vector<double> exact(static_cast<std::size_t>(g.elements[w])), rounded(exact.size());
    for (std::size_t i = 0; i < exact.size(); ++i) exact[i] = rounded[i] = load_as_double(in.bytes[w].data(), i, c.dtype);
    for (const ReferenceElement& e : r.elements(w)) {
      exact[static_cast<std::size_t>(e.offset)] = e.terms.value;
      rounded[static_cast<std::size_t>(e.offset)] = e.rounded;
    }
    out[py::str(n + "_f64")] = f64_like(g, w, exact);
    out[py::str(n)] = f64_like(g, w, rounded).attr("astype")(result_dtype(c.dtype));
    if (policy) {
      const ErrorModel model = case_error_model(policy_named(*policy), c, r.attention_factor);
      std::vector<double> budget(exact.size(), 0.0);
      for (const ReferenceElement& e : r.elements(w)) budget[static_cast<std::size_t>(e.offset)] = model.budget(e.terms);
      out[py::str(n + "_budget")] = f64_like(g, w, budget);
    }
  }
  return out;
}

void bind_rope_config(py::module_& m) {
  py::class_<RopeConfig>(m, "RopeConfig", "A validated rope configuration (scheme, parameters, head shape, layout).")
      .def_property_readonly("head_dim", [](const RopeConfig& c) { return c.shape.head_dim; })
      .def_property_readonly("rotary_dim", [](const RopeConfig& c) { return c.shape.rotary_dim; })
      .def_property_readonly("scheme", [](const RopeConfig& c) { return std::string(scheme_name(c.freq.scheme)); })
      .def_property_readonly("layout",
                             [](const RopeConfig& c) -> py::object {
                               if (!c.layout) return py::none();
                               return py::str(std::string(layout_name(*c.layout)));
                             })
      .def("describe", [](const RopeConfig& c) { return c.freq.describe(); })
      .def("to_json", &config_to_json, "ropecheck's own schema, which config_from_hf reads back")
      .def("to_hf_json", [](const RopeConfig& c) { return config_to_hf_json(c); },
           "the Hugging Face config.json form (None for explicit frequencies)")
      .def("__repr__", [](const RopeConfig& c) {
        return "RopeConfig(head_dim=" + std::to_string(c.shape.head_dim) +
               ", rotary_dim=" + std::to_string(c.shape.rotary_dim) + ", " + c.freq.describe() + ")";
      });
}

}  // namespace

void bind_reference(py::module_& m) {
  bind_rope_config(m);
  m.def("parse_config", [](const std::string& text) {
    try {
      return parse_rope_config(text);
    } catch (const ref::ConfigError& e) {
      throw py::value_error(e.what());
    }
  });
  m.def(
      "reference",
      [](py::array q, py::array k, py::array positions, const RopeConfig& config, const std::string& layout,
         const std::string& dtype, const std::string& direction, std::optional<std::string> policy) {
        const ReferenceArgs a{q, k, positions, layout, dtype, direction};
        const Case c = reference_case(a, config);
        return reference_outputs(c, reference_inputs(c, a), policy);
      },
      py::arg("q"), py::arg("k"), py::arg("positions"), py::arg("config"), py::kw_only(), py::arg("layout"),
      py::arg("dtype"), py::arg("direction"), py::arg("policy"));
}

}  // namespace ropecheck::python
