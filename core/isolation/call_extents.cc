#include "core/isolation/call_extents.h"

#include "ropecheck/dtype.h"

namespace ropecheck {

std::int64_t extent(const ropecheck_apply_params_t& p, bool q) {
  const std::int64_t heads = q ? p.num_q_heads : p.num_kv_heads;
  const std::int64_t ts = q ? p.q_token_stride : p.k_token_stride, hs = q ? p.q_head_stride : p.k_head_stride;
  const bool batched = p.struct_size >= ROPECHECK_APPLY_PARAMS_SIZE_1_2 && p.seq_len > 0;
  const std::int64_t ss = !batched ? 0 : q ? p.q_seq_stride : p.k_seq_stride;
  const std::int64_t per_seq = batched ? p.seq_len : p.num_tokens;
  const std::int64_t seqs = batched ? p.num_tokens / p.seq_len : 1;
  if (p.num_tokens <= 0 || heads <= 0 || p.head_dim <= 0 || ts < 0 || hs < 0 || ss < 0) return 0;
  return (seqs - 1) * ss + (per_seq - 1) * ts + (heads - 1) * hs + p.head_dim;
}

bool multi_axis(const ropecheck_apply_params_t& p) {
  return p.struct_size >= ROPECHECK_APPLY_PARAMS_SIZE_1_3 && p.num_axes != 0;
}

std::int64_t position_ids(const ropecheck_apply_params_t& p) {
  if (!multi_axis(p)) return p.num_tokens;
  if (p.num_axes < 0 || p.num_axes > ROPECHECK_MAX_AXES || p.position_axis_stride < p.num_tokens ||
      p.position_axis_stride > (std::int64_t{1} << 34))
    return -1;
  return p.position_axis_stride * (p.num_axes - 1) + p.num_tokens;
}

std::size_t cache_esize(std::uint32_t dtype) {
  return dtype < ROPECHECK_DTYPE_COUNT ? dtype_size(static_cast<ropecheck_dtype_t>(dtype)) : 4;
}

FreqCopies plan_freq(GuardedCopies& b, const ropecheck_freq_spec_t* f, int rotary_dim,
                     const ropecheck_freq_spec_t* patched) {
  FreqCopies c;
  if (!f) return c;
  const std::size_t n = static_cast<std::size_t>(rotary_dim / 2) * sizeof(double);
  if (f->short_factor) c.short_factor = b.plan("freq.short_factor", f->short_factor, n, true);
  if (f->long_factor) c.long_factor = b.plan("freq.long_factor", f->long_factor, n, true);
  if (f->inv_freq) c.inv_freq = b.plan("freq.inv_freq", f->inv_freq, n, true);
  c.spec = b.plan("freq", patched, sizeof *patched, true);
  return c;
}

const ropecheck_freq_spec_t* patch_freq(const GuardedCopies& b, const FreqCopies& c, const ropecheck_freq_spec_t* f,
                                        ropecheck_freq_spec_t* patched) {
  if (!f) return nullptr;
  *patched = *f;
  const auto at = [&](int i) { return reinterpret_cast<const double*>(b.data(i)); };
  if (c.short_factor >= 0) patched->short_factor = at(c.short_factor);
  if (c.long_factor >= 0) patched->long_factor = at(c.long_factor);
  if (c.inv_freq >= 0) patched->inv_freq = at(c.inv_freq);
  return reinterpret_cast<const ropecheck_freq_spec_t*>(b.data(c.spec));
}

}  // namespace ropecheck
