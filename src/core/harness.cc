#include "ropecheck/harness.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "ropecheck/dtype.h"
#include "ropecheck/layout.h"
#include "ropecheck/reference/rotation.h"
#include "ropecheck/reference/rounding.h"
#include "ropecheck/rng.h"

namespace ropecheck {
namespace {

// Elements a cache may hold before the harness declines to build it: 64 MiB
// of fp32 keeps a case under a second on CI machines.
std::int64_t g_max_cache_elements = std::int64_t{1} << 24;

}  // namespace

void set_max_cache_elements(std::int64_t n) { g_max_cache_elements = n; }
std::int64_t max_cache_elements() { return g_max_cache_elements; }

Geometry geometry(const Case& c) {
  Geometry g;
  g.head_dim = c.shape.head_dim;
  g.rotary_dim = c.shape.rotary_dim;
  g.tokens = c.tokens;
  g.esize = dtype_size(c.dtype);
  g.heads = {c.q_heads, c.kv_heads};
  for (int w = 0; w < 2; ++w) {
    g.head_stride[w] = c.shape.head_dim + c.head_pad;
    g.token_stride[w] = g.heads[w] * g.head_stride[w] + c.token_pad;
    g.elements[w] = c.tokens * g.token_stride[w];
  }
  return g;
}

void fill_canary(unsigned char* p, std::size_t bytes) {
  for (std::size_t i = 0; i < bytes; ++i) p[i] = canary_byte(i);
}

void store_value(unsigned char* base, std::int64_t i, ropecheck_dtype_t t, double v) {
  switch (t) {
    case ROPECHECK_DTYPE_F16: {
      const std::uint16_t b = f32_to_f16(static_cast<float>(v));
      std::memcpy(base + 2 * i, &b, 2);
      break;
    }
    case ROPECHECK_DTYPE_BF16: {
      const std::uint16_t b = f32_to_bf16(static_cast<float>(v));
      std::memcpy(base + 2 * i, &b, 2);
      break;
    }
    case ROPECHECK_DTYPE_F64:
      std::memcpy(base + 8 * i, &v, 8);
      break;
    default: {
      const float f = static_cast<float>(v);
      std::memcpy(base + 4 * i, &f, 4);
      break;
    }
  }
}

Tensors make_inputs(const Case& c) {
  const Geometry g = geometry(c);
  Tensors in;
  Rng rng(c.data_seed);
  for (int w = 0; w < 2; ++w) {
    auto& buf = in.t[w];
    buf.resize(static_cast<std::size_t>(g.elements[w]) * g.esize);
    fill_canary(buf.data(), buf.size());
    for (std::int64_t tok = 0; tok < c.tokens; ++tok)
      for (int h = 0; h < g.heads[w]; ++h)
        for (int j = 0; j < g.head_dim; ++j)
          store_value(buf.data(), g.offset(w, tok, h, j), c.dtype, draw_input(rng, c.dtype));
  }
  return in;
}

ReferenceResult compute_reference(const Case& c, const Tensors& in) {
  const Geometry g = geometry(c);
  ref::ReferenceRope<ref::Real> rope(c.freq, c.shape);
  ReferenceResult r;
  r.attention_factor = rope.freqs().attention_factor.convert_to<double>();
  const int hd = g.head_dim, d = g.rotary_dim;
  std::vector<ref::Real> x(hd), y(hd);
  for (int w = 0; w < 2; ++w) {
    auto& out = r.t[w];
    out.reserve(static_cast<std::size_t>(c.tokens * g.heads[w] * d));
    for (std::int64_t tok = 0; tok < c.tokens; ++tok) {
      const std::int64_t pos = c.positions[tok];
      const auto& trig = rope.trig(pos);
      for (int h = 0; h < g.heads[w]; ++h) {
        const std::int64_t off = g.offset(w, tok, h, 0);
        for (int j = 0; j < hd; ++j) x[j] = ref::Real(load_as_double(in.t[w].data(), off + j, c.dtype));
        rope.rotate(x.data(), y.data(), pos, c.layout, c.direction);
        for (int i = 0; i < d / 2; ++i) {
          int a, b;
          pair_channels(c.layout, d, i, &a, &b);
          const double xa = x[a].convert_to<double>(), xb = x[b].convert_to<double>();
          const double va = y[a].convert_to<double>(), vb = y[b].convert_to<double>();
          const double ca = trig.cos[i].convert_to<double>(), sa = trig.sin[i].convert_to<double>();
          const auto terms = pair_terms(xa, xb, va, vb, ca, sa, std::fabs(rope.angle(pos, i).convert_to<double>()), pos, i);
          for (int side = 0; side < 2; ++side) {
            ReferenceElement e;
            e.terms = terms[side];
            const int ch = side == 0 ? a : b;
            e.rounded = ref::round_to_dtype(y[ch], c.dtype);
            e.offset = off + ch;
            e.token = tok;
            e.head = h;
            e.channel = ch;
            out.push_back(e);
          }
        }
      }
    }
  }
  return r;
}

std::string out_of_scope(const ropecheck_impl_t& impl, const Case& c) {
  const ropecheck_caps_t& k = impl.caps;
  if (!(k.layouts & (1u << c.layout))) return "layout " + std::string(layout_name(c.layout));
  if (!(k.dtypes & (1u << c.dtype))) return "dtype " + std::string(dtype_name(c.dtype));
  if (!(k.schemes & (1u << c.freq.scheme))) return "scheme " + std::string(scheme_name(c.freq.scheme));
  if (static_cast<std::uint32_t>(c.shape.head_dim) > k.max_head_dim) return "head_dim";
  if (c.shape.rotary_dim < c.shape.head_dim && !(k.flags & ROPECHECK_CAP_PARTIAL_ROTARY))
    return "partial rotary";
  if (c.direction == ROPECHECK_DIRECTION_INVERSE && !(k.flags & ROPECHECK_CAP_INVERSE))
    return "inverse direction";
  if (!(k.flags & (c.in_place ? ROPECHECK_CAP_IN_PLACE : ROPECHECK_CAP_OUT_OF_PLACE)))
    return c.in_place ? "in-place" : "out-of-place";
  if (!(k.flags & (c.position_type == ROPECHECK_INDEX_INT32 ? ROPECHECK_CAP_POS_INT32
                                                            : ROPECHECK_CAP_POS_INT64)))
    return "position dtype";
  bool negative = false;
  for (auto p : c.positions) negative |= p < 0;
  if (negative && (!(k.flags & ROPECHECK_CAP_NEGATIVE_POSITIONS) || (k.flags & ROPECHECK_CAP_COS_SIN_CACHE)))
    return "negative positions";
  if (k.flags & ROPECHECK_CAP_COS_SIN_CACHE) {
    if ((c.max_abs_position() + 1) * c.shape.rotary_dim > g_max_cache_elements)
      return "cos/sin cache over the harness limit of " + std::to_string(g_max_cache_elements) + " elements";
  }
  return {};
}

RunResult execute(const ropecheck_impl_t& impl, const Case& c, const Tensors& in, int cache_rows_short) {
  const Geometry g = geometry(c);
  RunResult r;
  Tensors inputs = in;  // the kernel may write into these when in place
  if (c.in_place) {
    r.out = inputs;
  } else {
    for (int w = 0; w < 2; ++w) {
      r.out.t[w].resize(in.t[w].size());
      fill_canary(r.out.t[w].data(), r.out.t[w].size());
    }
  }
  std::vector<std::int32_t> pos32(c.positions.begin(), c.positions.end());
  const std::vector<std::int64_t>& pos64 = c.positions;
  std::vector<float> cache;
  char err[512] = {0};
  const ropecheck_freq_spec_t abi_freq = c.freq.to_abi();
  ropecheck_apply_params_t p{};
  p.struct_size = sizeof(p);
  p.dtype = c.dtype;
  p.layout = c.layout;
  p.direction = c.direction;
  p.num_tokens = c.tokens;
  p.num_q_heads = c.q_heads;
  p.num_kv_heads = c.kv_heads;
  p.head_dim = c.shape.head_dim;
  p.rotary_dim = c.shape.rotary_dim;
  unsigned char* q_out = r.out.t[0].data();
  unsigned char* k_out = r.out.t[1].data();
  p.q_in = c.in_place ? q_out : inputs.t[0].data();
  p.q_out = q_out;
  p.q_token_stride = g.token_stride[0];
  p.q_head_stride = g.head_stride[0];
  p.k_in = c.in_place ? k_out : inputs.t[1].data();
  p.k_out = k_out;
  p.k_token_stride = g.token_stride[1];
  p.k_head_stride = g.head_stride[1];
  p.positions = c.position_type == ROPECHECK_INDEX_INT32 ? static_cast<const void*>(pos32.data())
                                                         : static_cast<const void*>(pos64.data());
  p.position_type = c.position_type;
  p.freq = &abi_freq;
  if (impl.caps.flags & ROPECHECK_CAP_COS_SIN_CACHE) {
    if (impl.build_cache == nullptr) {
      r.status = ROPECHECK_INTERNAL_ERROR;
      r.message = "declares a cos/sin cache but exports no build_cache";
      return r;
    }
    const std::int64_t rows = std::max<std::int64_t>(c.max_abs_position() + 1 - cache_rows_short, 1);
    cache.assign(static_cast<std::size_t>(rows * c.shape.rotary_dim), 0.0f);
    if (auto st = impl.build_cache(impl.ctx, &abi_freq, c.shape.rotary_dim, rows,
                                   ROPECHECK_DTYPE_F32, cache.data(), err, sizeof err)) {
      r.status = st;
      r.message = std::string("build_cache: ") + err;
      return r;
    }
    p.cos_sin_cache = cache.data();
    p.cache_dtype = ROPECHECK_DTYPE_F32;
    p.cache_max_position = rows;
  }
  r.status = impl.apply(impl.ctx, &p, err, sizeof err);
  if (r.status != ROPECHECK_OK) r.message = err;
  return r;
}

}  // namespace ropecheck
