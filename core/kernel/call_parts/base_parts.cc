// SPDX-License-Identifier: MIT
// The q/k, positions and frequency parts of a kernel call.
#include "core/kernel/call_parts/base_parts.h"

#include <algorithm>
#include <cstring>

#include "core/cases/views.h"

namespace ropecheck {

bool refuse_call(CallSetup& s, std::string why) {
  s.r.status = ROPECHECK_INTERNAL_ERROR;
  s.r.misbehaviour = std::move(why);
  return false;
}

bool QkPart::set_up(CallSetup& s) {
  const Case& c = s.c;
  const Geometry& g = s.g;
  KernelRun& r = s.r;
  private_inputs_ = !c.in_place && !s.isolated;
  if (private_inputs_) inputs_ = s.in;
  const QkBuffers& given = private_inputs_ ? inputs_ : s.in;
  if (c.in_place) {
    r.out = s.in;
  } else {
    const PoisonKind kind = s.o.poison ? *s.o.poison : draw_poison_kind();
    for (int w = 0; w < 2; ++w) {
      r.out.bytes[w].resize(s.in.bytes[w].size());
      fill_poison(r.out.bytes[w].data(), r.out.bytes[w].size(), c.dtype, kind, s.in.bytes[w].data());
    }
  }
  // What the outputs held, for the check of writes outside the views;
  // nothing to keep when the views are the whole buffers (no padding, no
  // other part of a qkv row): a copy of both outputs per call, 2% of a
  // quick gate, that no check read.
  if (!views_cover_buffer(g, 0) || !views_cover_buffer(g, 1)) r.initial = r.out;
  const std::optional<CallStrides> st = call_strides(c, g, (s.impl.caps.flags & ROPECHECK_CAP_SEQ_STRIDES) != 0);
  if (!st)  // outside_capabilities declines these cases first: a caller skipped it
    return refuse_call(s, "ropecheck called the kernel on a batched case it cannot express without SEQ_STRIDES "
                          "(the caller did not check outside_capabilities)");
  // Each view starts at its base (the k view of a fused qkv row).
  unsigned char* q_out = r.out.bytes[0].data() + g.base[0] * g.esize;
  unsigned char* k_out = r.out.bytes[1].data() + g.base[1] * g.esize;
  ropecheck_apply_params_t& p = s.p;
  p.q_in = c.in_place ? q_out : given.bytes[0].data() + g.base[0] * g.esize;
  p.q_out = q_out;
  p.q_token_stride = st->token_stride[0];
  p.q_head_stride = st->head_stride[0];
  p.k_in = c.kv_heads == 0 ? nullptr : c.in_place ? k_out : given.bytes[1].data() + g.base[1] * g.esize;
  p.k_out = c.kv_heads == 0 ? nullptr : k_out;  // kv_heads 0: no k (kernel_abi.h)
  p.k_token_stride = st->token_stride[1];
  p.k_head_stride = st->head_stride[1];
  p.seq_len = st->seq_len;
  p.q_seq_stride = st->seq_stride[0];
  p.k_seq_stride = st->seq_stride[1];
  return true;
}

std::string QkPart::changed(const CallSetup& s) const {
  if (private_inputs_ && inputs_.bytes != s.in.bytes)
    return "wrote into its input " + std::string(inputs_.bytes[0] != s.in.bytes[0] ? "q_in" : "k_in");
  return {};
}

bool PositionsPart::set_up(CallSetup& s) {
  const Case& c = s.c;
  ids_ = call_positions(c);
  if (c.position_type == ROPECHECK_INDEX_INT32) {
    for (const std::int64_t id : c.positions)
      if (!fits_int32_position(id))
        return refuse_call(s, "ropecheck would narrow position " + std::to_string(id) +
                                  " into an int32 buffer (the caller did not check outside_capabilities)");
    pos32_.assign(ids_.ids.begin(), ids_.ids.end());
    s.p.positions = pos32_.data();
  } else {
    pos64_ = ids_.ids;
    s.p.positions = pos64_.data();
  }
  s.p.position_type = c.position_type;
  if (c.axes.multi()) {
    sections_ = c.axes.sections;
    table_ = c.axes.table;
    s.p.num_axes = c.axes.num_axes;
    s.p.axis_assignment = c.axes.assignment;
    s.p.axis_frequencies = c.axes.frequencies;
    s.p.position_axis_stride = ids_.axis_stride;
    s.p.axis_sections = sections_.empty() ? nullptr : sections_.data();
    s.p.pair_axis = table_.empty() ? nullptr : table_.data();
  }
  return true;
}

std::string PositionsPart::changed(const CallSetup& s) const {
  const bool ids32 = s.c.position_type == ROPECHECK_INDEX_INT32;
  if (ids32 ? !std::equal(pos32_.begin(), pos32_.end(), ids_.ids.begin(), ids_.ids.end(),
                          [](std::int32_t a, std::int64_t b) { return a == static_cast<std::int32_t>(b); })
            : pos64_ != ids_.ids)
    return "wrote into its input positions";
  if (s.c.axes.multi() && sections_ != s.c.axes.sections) return "wrote into its input axis_sections";
  if (s.c.axes.multi() && table_ != s.c.axes.table) return "wrote into its input pair_axis";
  return {};
}

bool FreqPart::set_up(CallSetup& s) {
  freq_ = s.c.freq;
  abi_ = before_ = freq_.to_abi();
  s.p.freq = &abi_;
  return true;
}

std::string FreqPart::changed(const CallSetup& s) const {
  if (std::memcmp(&abi_, &before_, sizeof abi_) != 0) return "wrote into its input freq";
  if (freq_.short_factor != s.c.freq.short_factor) return "wrote into its input freq.short_factor";
  if (freq_.long_factor != s.c.freq.long_factor) return "wrote into its input freq.long_factor";
  if (freq_.inv_freq != s.c.freq.inv_freq) return "wrote into its input freq.inv_freq";
  return {};
}

}  // namespace ropecheck
