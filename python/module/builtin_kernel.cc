// SPDX-License-Identifier: MIT
// The definitions of python/module/builtin_kernel.h.
#include "python/module/builtin_kernel.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "core/cases/cases.h"
#include "core/config/config.h"
#include "impls/registry.h"
#include "ropecheck/dtype.h"

namespace ropecheck::python {

BuiltinKernel::BuiltinKernel(const std::string& name) : impl_(find_impl(name)) {
  if (!impl_) throw std::invalid_argument("builtin_kernel: no built-in implementation named '" + name + "'");
}

py::tuple BuiltinKernel::operator()(const py::array& q, const py::array& k, const py::array& positions,
                                    const RopeCall& rope) const {
  ropecheck_dtype_t dtype;
  if (!parse_dtype(rope.dtype, &dtype)) throw std::invalid_argument("rope.dtype: unknown dtype " + rope.dtype);
  const RopeConfig cfg = parse_rope_config(std::string(py::str(py::module_::import("json").attr("dumps")(rope.config))));
  const ropecheck_freq_spec_t freq = cfg.freq.to_abi();
  const auto tokens = static_cast<std::int64_t>(q.shape(0));
  const auto pos = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>(positions);
  std::vector<std::int64_t> ids(pos.data(), pos.data() + pos.size());
  if (rope.num_axes > 0 && (pos.ndim() != 2 || pos.shape(0) != rope.num_axes || pos.shape(1) != tokens))
    throw std::invalid_argument("positions: must be [num_axes, tokens] = [" + std::to_string(rope.num_axes) + ", " +
                                std::to_string(tokens) + "] for a multi-axis call");
  std::vector<std::int32_t> sections(rope.axis_sections.begin(), rope.axis_sections.end());
  std::vector<std::int32_t> table(rope.pair_axis.begin(), rope.pair_axis.end());
  // Storage in the call's dtype, dense, from the (possibly widened) arrays.
  std::vector<unsigned char> buf[2];
  const py::array in[2] = {q, k};
  StridedView views[2];
  for (int w = 0; w < 2; ++w) {
    const auto heads = static_cast<std::int64_t>(in[w].shape(1));
    const std::int64_t hd = rope.head_dim;
    buf[w].resize(static_cast<std::size_t>(tokens * heads * hd) * dtype_size(dtype));
    views[w] = {buf[w].data(), buf[w].data(), tokens, heads, hd, heads * hd, hd, dtype};
    write_back(py::array::ensure(in[w], py::array::c_style), views[w]);
  }
  ropecheck_apply_params_t p{};
  p.struct_size = sizeof p;
  p.dtype = dtype;
  ropecheck_layout_t layout;
  parse_layout(rope.layout, &layout);
  p.layout = layout;
  p.direction = rope.direction == "inverse" ? ROPECHECK_DIRECTION_INVERSE : ROPECHECK_DIRECTION_FORWARD;
  p.num_tokens = tokens;
  p.num_q_heads = static_cast<std::int32_t>(views[0].heads);
  p.num_kv_heads = static_cast<std::int32_t>(views[1].heads);
  p.head_dim = rope.head_dim;
  p.rotary_dim = rope.rotary_dim;
  p.q_in = p.q_out = buf[0].data();
  p.k_in = p.k_out = buf[1].data();
  p.q_token_stride = views[0].token_stride;
  p.q_head_stride = views[0].head_stride;
  p.k_token_stride = views[1].token_stride;
  p.k_head_stride = views[1].head_stride;
  p.positions = ids.data();
  p.position_type = ROPECHECK_INDEX_INT64;
  if (rope.num_axes > 0) {
    p.num_axes = rope.num_axes;
    p.position_axis_stride = tokens;
    p.axis_assignment = rope.axis_assignment == "interleaved" ? ROPECHECK_AXES_INTERLEAVED
                        : rope.axis_assignment == "table"     ? ROPECHECK_AXES_TABLE
                                                              : ROPECHECK_AXES_SECTIONS;
    p.axis_frequencies = rope.axis_frequencies == "per_axis" ? ROPECHECK_AXIS_FREQ_PER_AXIS : ROPECHECK_AXIS_FREQ_SHARED;
    p.axis_sections = sections.empty() ? nullptr : sections.data();
    p.pair_axis = table.empty() ? nullptr : table.data();
  }
  p.freq = &freq;
  std::vector<float> cache;
  char err[512] = {0};
  if (impl_->caps.flags & ROPECHECK_CAP_COS_SIN_CACHE) {
    std::int64_t rows = 1;
    for (std::int64_t v : ids) rows = std::max(rows, abs_position(v) + 1);
    cache.resize(static_cast<std::size_t>(rows * rope.rotary_dim));
    if (impl_->build_cache(impl_->ctx, &freq, rope.rotary_dim, rows, ROPECHECK_DTYPE_F32, cache.data(), err, sizeof err))
      throw std::runtime_error(std::string(impl_->name) + " build_cache: " + err);
    p.cos_sin_cache = cache.data();
    p.cache_dtype = ROPECHECK_DTYPE_F32;
    p.cache_max_position = rows;
  }
  if (const ropecheck_status_t st = impl_->apply(impl_->ctx, &p, err, sizeof err))
    throw std::runtime_error(std::string(impl_->name) + " returned status " + std::to_string(st) + ": " + err);
  views[0].in = buf[0].data();
  views[1].in = buf[1].data();
  return py::make_tuple(dense_copy(views[0]), dense_copy(views[1]));
}

}  // namespace ropecheck::python
