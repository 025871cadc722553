#include "ropecheck/conformance.h"

#include <cmath>
#include <cstring>
#include <sstream>

#include "ropecheck/dtype.h"
#include "ropecheck/layout.h"
#include "ropecheck/reference/rotation.h"
#include "ropecheck/reference/rounding.h"
#include "ropecheck/rng.h"

namespace ropecheck {

int position_bin(std::int64_t p) {
  const std::uint64_t a = p < 0 ? static_cast<std::uint64_t>(-(p + 1)) + 1 : static_cast<std::uint64_t>(p);
  if (a < (1u << 10)) return 0;
  if (a < (1u << 16)) return 1;
  if (a < (1u << 20)) return 2;
  return 3;
}

const char* position_bin_name(int bin) {
  constexpr const char* kNames[] = {"<2^10", "2^10..2^16", "2^16..2^20", ">=2^20"};
  return kNames[bin];
}

std::string Violation::format() const {
  std::ostringstream os;
  os.precision(9);
  os << what << " at " << tensor << "[token " << token << ", head " << head << ", channel "
     << channel << "] position " << position << ": got " << got << " (" << std::hexfloat << got
     << std::defaultfloat << "), expected " << expected << " (" << std::hexfloat << expected
     << std::defaultfloat << "), budget " << budget;
  if (!detail.empty()) os << " [" << detail << "]";
  return os.str();
}

namespace {

// Elements a cache may hold before the harness declines to build it: 64 MiB
// of fp32 keeps a case under a second on CI machines.
constexpr std::int64_t kMaxCacheElements = std::int64_t{1} << 24;

// One logical tensor (q or k) of a case: storage with padding, and per
// element what the reference says.
struct TensorData {
  const char* name;
  int heads = 0;
  std::int64_t head_stride = 0, token_stride = 0, elements = 0;
  std::vector<unsigned char> input;  // storage bytes with canaries in the padding
  // Per rotated element (index = offset into storage), the budget terms.
  std::vector<ElementTerms> terms;
  std::vector<double> rounded;       // exact result correctly rounded to the dtype
  std::vector<std::int64_t> offsets;  // storage offsets of rotated elements
  std::vector<int> token_of, head_of, channel_of;
};

void write_bits(unsigned char* base, std::int64_t i, ropecheck_dtype_t t, double v) {
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

// A signalling-NaN-like pattern no kernel produces by arithmetic.
void fill_canary(unsigned char* p, std::size_t bytes) {
  for (std::size_t i = 0; i < bytes; ++i) p[i] = (i % 2) ? 0x7f : 0xa5;
}

}  // namespace

struct CaseRunner::State {
  Case c;
  std::vector<TensorData> tensors;  // q, then k
  std::vector<std::int32_t> pos32;
  std::vector<std::int64_t> pos64;
  double attention_factor = 1.0;
};

CaseRunner::~CaseRunner() = default;
const Case& CaseRunner::spec() const { return s_->c; }

CaseRunner::CaseRunner(const Case& c) : s_(std::make_unique<State>()) {
  State& s = *s_;
  s.c = c;
  ref::ReferenceRope<ref::Real> rope(c.freq, c.shape);
  s.attention_factor = rope.freqs().attention_factor.convert_to<double>();
  const int hd = c.shape.head_dim, d = c.shape.rotary_dim;
  const std::size_t esize = dtype_size(c.dtype);
  Rng rng(c.data_seed);
  for (auto p : c.positions) {
    s.pos64.push_back(p);
    s.pos32.push_back(static_cast<std::int32_t>(p));
  }
  for (int which = 0; which < 2; ++which) {
    TensorData t;
    t.name = which == 0 ? "q" : "k";
    t.heads = which == 0 ? c.q_heads : c.kv_heads;
    t.head_stride = hd + c.head_pad;
    t.token_stride = t.heads * t.head_stride + c.token_pad;
    t.elements = c.tokens * t.token_stride;
    t.input.resize(static_cast<std::size_t>(t.elements) * esize);
    fill_canary(t.input.data(), t.input.size());
    std::vector<ref::Real> x(hd), y(hd);
    for (std::int64_t tok = 0; tok < c.tokens; ++tok) {
      const std::int64_t pos = c.positions[tok];
      const auto& trig = rope.trig(pos);
      for (int h = 0; h < t.heads; ++h) {
        const std::int64_t off = tok * t.token_stride + h * t.head_stride;
        for (int j = 0; j < hd; ++j) {
          const double v = draw_input(rng, c.dtype);
          write_bits(t.input.data(), off + j, c.dtype, v);
          x[j] = ref::Real(load_as_double(t.input.data(), off + j, c.dtype));
        }
        rope.rotate(x.data(), y.data(), pos, c.layout, c.direction);
        for (int i = 0; i < d / 2; ++i) {
          int a, b;
          pair_channels(c.layout, d, i, &a, &b);
          const double xa = x[a].convert_to<double>(), xb = x[b].convert_to<double>();
          const double va = y[a].convert_to<double>(), vb = y[b].convert_to<double>();
          const double ca = trig.cos[i].convert_to<double>(), sa = trig.sin[i].convert_to<double>();
          const double angle = std::fabs(rope.angle(pos, i).convert_to<double>());
          for (int side = 0; side < 2; ++side) {
            ElementTerms e;
            e.x = xa;
            e.y = xb;
            e.value = side == 0 ? va : vb;
            e.partner = side == 0 ? vb : va;
            e.cos_a = ca;
            e.sin_a = sa;
            e.abs_products = side == 0 ? std::fabs(xa * ca) + std::fabs(xb * sa)
                                       : std::fabs(xa * sa) + std::fabs(xb * ca);
            e.abs_angle = angle;
            e.position = pos;
            e.pair = i;
            const int ch = side == 0 ? a : b;
            t.terms.push_back(e);
            t.rounded.push_back(ref::round_to_dtype(y[ch], c.dtype));
            t.offsets.push_back(off + ch);
            t.token_of.push_back(static_cast<int>(tok));
            t.head_of.push_back(h);
            t.channel_of.push_back(ch);
          }
        }
      }
    }
    s.tensors.push_back(std::move(t));
  }
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
    if ((c.max_abs_position() + 1) * c.shape.rotary_dim > kMaxCacheElements)
      return "cos/sin cache over the harness limit of 2^24 elements";
  }
  return {};
}

CaseOutcome CaseRunner::run(const ropecheck_impl_t& impl) const {
  const State& s = *s_;
  const Case& c = s.c;
  CaseOutcome out;
  if (std::string why = out_of_scope(impl, c); !why.empty()) {
    out.outcome = Outcome::kSkipped;
    out.message = "outside capabilities: " + why;
    return out;
  }
  if (std::string bad = ErrorModel::check_policy(impl.policy); !bad.empty()) {
    out.outcome = Outcome::kFail;
    out.message = "declared policy rejected: " + bad;
    return out;
  }
  const std::size_t esize = dtype_size(c.dtype);
  const ErrorModel model(impl.policy, c.freq, c.shape, c.dtype, s.attention_factor);
  char err[512] = {0};

  // Fresh buffers: in-place gets a copy of the input; out-of-place gets the
  // input plus an output pre-filled with canaries (catches unwritten elements).
  std::vector<std::vector<unsigned char>> in(2), outb(2);
  for (int w = 0; w < 2; ++w) {
    in[w] = s.tensors[w].input;
    if (c.in_place) {
      outb[w].clear();
    } else {
      outb[w].resize(in[w].size());
      fill_canary(outb[w].data(), outb[w].size());
      // Pass-through channels and padding are the kernel's to copy or leave;
      // keep the canaries in padding, copy nothing else.
    }
  }
  auto out_ptr = [&](int w) -> unsigned char* { return c.in_place ? in[w].data() : outb[w].data(); };

  std::vector<float> cache;
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
  p.q_in = in[0].data();
  p.q_out = out_ptr(0);
  p.q_token_stride = s.tensors[0].token_stride;
  p.q_head_stride = s.tensors[0].head_stride;
  p.k_in = in[1].data();
  p.k_out = out_ptr(1);
  p.k_token_stride = s.tensors[1].token_stride;
  p.k_head_stride = s.tensors[1].head_stride;
  p.positions = c.position_type == ROPECHECK_INDEX_INT32 ? static_cast<const void*>(s.pos32.data())
                                                         : static_cast<const void*>(s.pos64.data());
  p.position_type = c.position_type;
  p.freq = &abi_freq;
  if (impl.caps.flags & ROPECHECK_CAP_COS_SIN_CACHE) {
    if (impl.build_cache == nullptr) {
      out.outcome = Outcome::kFail;
      out.message = "declares a cos/sin cache but exports no build_cache";
      return out;
    }
    const std::int64_t rows = c.max_abs_position() + 1;
    cache.assign(static_cast<std::size_t>(rows * c.shape.rotary_dim), 0.0f);
    if (auto st = impl.build_cache(impl.ctx, &abi_freq, c.shape.rotary_dim, rows,
                                   ROPECHECK_DTYPE_F32, cache.data(), err, sizeof err)) {
      out.outcome = Outcome::kFail;
      out.message = "build_cache returned status " + std::to_string(st) + ": " + err;
      return out;
    }
    p.cos_sin_cache = cache.data();
    p.cache_dtype = ROPECHECK_DTYPE_F32;
    p.cache_max_position = rows;
  }
  if (auto st = impl.apply(impl.ctx, &p, err, sizeof err)) {
    out.outcome = Outcome::kFail;
    out.message = "apply returned status " + std::to_string(st) + " on a case inside its "
                  "declared capabilities: " + err;
    return out;
  }

  auto note = [&](Violation v) {
    ++out.violations;
    if (!out.first) out.first = std::move(v);
  };
  for (int w = 0; w < 2; ++w) {
    const TensorData& t = s.tensors[w];
    const unsigned char* got = out_ptr(w);
    std::vector<char> is_rotated(static_cast<std::size_t>(t.elements), 0);
    for (std::size_t k = 0; k < t.offsets.size(); ++k) {
      const std::int64_t off = t.offsets[k];
      is_rotated[off] = 1;
      const ElementTerms& e = t.terms[k];
      const double g = load_as_double(got, off, c.dtype);
      const double budget = model.budget(e);
      const double err_abs = std::fabs(g - e.value);
      const double units = err_abs / budget;
      const double ulp = ref::ulp_of(t.rounded[k], c.dtype);
      const double ulps = std::fabs(g - t.rounded[k]) / ulp;
      BinStats& b = out.bins[position_bin(e.position)];
      ++b.elements;
      if (!(units <= 1.0)) {  // also catches NaN
        note({t.name, t.token_of[k], t.head_of[k], t.channel_of[k], e.position, g, e.value,
              budget, "outside budget", model.explain(e)});
      }
      const double u = std::isnan(units) ? HUGE_VAL : units;
      const double l = std::isnan(ulps) ? HUGE_VAL : ulps;
      b.worst_units = std::max(b.worst_units, u);
      b.worst_ulps = std::max(b.worst_ulps, l);
      out.worst_units = std::max(out.worst_units, u);
      out.worst_ulps = std::max(out.worst_ulps, l);
    }
    // Everything else: pass-through channels must be bit-identical to the
    // input; padding must still hold its canary (in-place: the input bytes).
    const int hd = c.shape.head_dim;
    for (std::int64_t off = 0; off < t.elements; ++off) {
      if (is_rotated[off]) continue;
      const std::int64_t tok = off / t.token_stride;
      const std::int64_t in_tok = off % t.token_stride;
      const int head = static_cast<int>(in_tok / t.head_stride);
      const int ch = static_cast<int>(in_tok % t.head_stride);
      const bool payload = head < t.heads && ch < hd;
      const unsigned char* expect = payload || c.in_place ? t.input.data() + off * esize : nullptr;
      unsigned char canary[8];
      if (!expect) {
        fill_canary(canary, sizeof canary);
        // The canary pattern depends on the byte's parity within the buffer.
        for (std::size_t bi = 0; bi < esize; ++bi) canary[bi] = ((off * esize + bi) % 2) ? 0x7f : 0xa5;
        expect = canary;
      }
      if (std::memcmp(got + off * esize, expect, esize) != 0) {
        note({t.name, tok, head, ch, c.positions[tok], load_as_double(got, off, c.dtype),
              load_as_double(expect, 0, c.dtype), 0.0,
              payload ? "pass-through channel modified" : "wrote into padding outside the tensor",
              ""});
      }
    }
  }
  if (out.violations > 0) {
    out.outcome = Outcome::kFail;
    out.message = std::to_string(out.violations) + " element(s) wrong; first: " + out.first->format();
  }
  return out;
}

}  // namespace ropecheck
