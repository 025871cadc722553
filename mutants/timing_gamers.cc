// SPDX-License-Identifier: MIT
// The timer-steering kernels of timing_gamers.h.
#include "mutants/timing_gamers.h"

#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

#include "impls/kernel_support/abi_check.h"
#include "ropecheck/dtype.h"

namespace ropecheck::mutant {
namespace {

// A token's bytes in one tensor: its heads, one row (token-major).
struct Rows {
  const unsigned char* base;
  std::size_t token_bytes, row_bytes;
  const unsigned char* at(std::int64_t t) const { return base + static_cast<std::size_t>(t) * token_bytes; }
};

// The rows of q's (is_q) or k's strides and heads at `base` (its input or output).
Rows rows(const ropecheck_apply_params_t* p, const void* base, bool is_q) {
  const std::size_t es = dtype_size(static_cast<ropecheck_dtype_t>(p->dtype));
  const std::int64_t token_stride = is_q ? p->q_token_stride : p->k_token_stride;
  const std::int64_t head_stride = is_q ? p->q_head_stride : p->k_head_stride;
  const int heads = is_q ? p->num_q_heads : p->num_kv_heads;
  return {static_cast<const unsigned char*>(base), static_cast<std::size_t>(token_stride) * es,
          static_cast<std::size_t>((heads - 1) * head_stride + p->head_dim) * es};
}

// What the last call saw and wrote, per token, and its shape.
struct Last {
  std::vector<std::int64_t> shape;
  std::vector<unsigned char> q_in, k_in, q_out, k_out;
  std::vector<std::int64_t> positions;
};

std::vector<std::int64_t> shape_of(const ropecheck_apply_params_t* p) {
  return {p->dtype, p->layout, p->direction, p->num_tokens, p->num_q_heads, p->num_kv_heads, p->head_dim,
          p->rotary_dim, p->q_token_stride, p->q_head_stride, p->k_token_stride, p->k_head_stride,
          static_cast<std::int64_t>(p->q_in == p->q_out)};
}

void save(const Rows& r, std::int64_t tokens, std::vector<unsigned char>* to) {
  to->resize(static_cast<std::size_t>(tokens) * r.row_bytes);
  for (std::int64_t t = 0; t < tokens; ++t) std::memcpy(to->data() + static_cast<std::size_t>(t) * r.row_bytes, r.at(t), r.row_bytes);
}

}  // namespace

ropecheck_status_t diff_cached_apply(const ropecheck_impl_t& clean, const ropecheck_apply_params_t* p, char* err,
                                     std::size_t n) {
  static std::mutex mu;
  static Last last;
  std::lock_guard<std::mutex> lock(mu);
  const std::int64_t T = p->num_tokens;
  const bool has_k = p->num_kv_heads > 0;
  const bool plain = p->seq_len == 0 && impl::axes_of(p) == 0 && p->kv_write == nullptr;
  const Rows qi = rows(p, p->q_in, true);
  const Rows ki = has_k ? rows(p, p->k_in, false) : Rows{};
  std::vector<std::int64_t> positions(static_cast<std::size_t>(T));
  for (std::int64_t t = 0; t < T; ++t) positions[static_cast<std::size_t>(t)] = impl::position_at(p, t);
  // Which tokens differ from the last call's (all of them when its shape differs).
  std::vector<char> changed(static_cast<std::size_t>(T), 1);
  std::int64_t count = T;
  if (plain && last.shape == shape_of(p)) {
    count = 0;
    for (std::int64_t t = 0; t < T; ++t) {
      const std::size_t at = static_cast<std::size_t>(t);
      const bool same = positions[at] == last.positions[at] &&
                        std::memcmp(qi.at(t), last.q_in.data() + at * qi.row_bytes, qi.row_bytes) == 0 &&
                        (!has_k || std::memcmp(ki.at(t), last.k_in.data() + at * ki.row_bytes, ki.row_bytes) == 0);
      changed[at] = !same;
      count += !same;
    }
  }
  // The inputs, before an in-place call overwrites them.
  std::vector<unsigned char> q_in, k_in;
  if (plain) {
    save(qi, T, &q_in);
    if (has_k) save(ki, T, &k_in);
  }
  if (!plain || 2 * count > T) {
    if (auto st = clean.apply(clean.ctx, p, err, n)) return st;
  } else {
    for (std::int64_t t = 0; t < T; ++t) {
      const std::size_t at = static_cast<std::size_t>(t);
      if (changed[at]) {  // this token alone
        ropecheck_apply_params_t one = *p;
        one.num_tokens = 1;
        one.q_in = static_cast<const unsigned char*>(p->q_in) + at * qi.token_bytes;
        one.q_out = static_cast<unsigned char*>(p->q_out) + at * qi.token_bytes;
        if (has_k) {
          one.k_in = static_cast<const unsigned char*>(p->k_in) + at * ki.token_bytes;
          one.k_out = static_cast<unsigned char*>(p->k_out) + at * ki.token_bytes;
        }
        one.positions = p->position_type == ROPECHECK_INDEX_INT32
                            ? static_cast<const void*>(static_cast<const std::int32_t*>(p->positions) + t)
                            : static_cast<const void*>(static_cast<const std::int64_t*>(p->positions) + t);
        if (auto st = clean.apply(clean.ctx, &one, err, n)) return st;
        continue;
      }
      std::memcpy(static_cast<unsigned char*>(p->q_out) + at * qi.token_bytes, last.q_out.data() + at * qi.row_bytes,
                  qi.row_bytes);
      if (has_k)
        std::memcpy(static_cast<unsigned char*>(p->k_out) + at * ki.token_bytes, last.k_out.data() + at * ki.row_bytes,
                    ki.row_bytes);
    }
  }
  if (!plain) {
    last.shape.clear();
    return ROPECHECK_OK;
  }
  last.shape = shape_of(p);
  last.positions = std::move(positions);
  last.q_in = std::move(q_in);
  last.k_in = std::move(k_in);
  save(rows(p, p->q_out, true), T, &last.q_out);
  if (has_k) save(rows(p, p->k_out, false), T, &last.k_out);
  return ROPECHECK_OK;
}

ropecheck_status_t every_fourth_call_apply(const ropecheck_impl_t& clean, const ropecheck_apply_params_t* p,
                                           char* err, std::size_t n) {
  static std::mutex mu;
  static int calls = 0;
  int call = 0;
  {
    std::lock_guard<std::mutex> lock(mu);
    call = calls++;
  }
  if (call % 4 != 0) return ROPECHECK_OK;  // "not judged", it guesses: nothing computed
  return clean.apply(clean.ctx, p, err, n);
}

}  // namespace ropecheck::mutant
