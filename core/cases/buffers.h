// SPDX-License-Identifier: MIT
// A case's storage: where each element of q and k lives (token, head and
// channel strides, padding) and the input bits drawn from the case's data
// seed. Every property, the judge and the golden exporter lay buffers out
// through this one place.
#ifndef ROPECHECK_CORE_CASES_BUFFERS_H_
#define ROPECHECK_CORE_CASES_BUFFERS_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/cases/cases.h"
#include "core/cases/fork_private.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck {

// Where a case's elements live: tensor w = 0 (q) or 1 (k). Token t is index
// t % seq_len of sequence t / seq_len; each tensor starts `base` elements
// into its buffer (the k view of a fused qkv row starts q_heads heads in).
struct Geometry {
  int head_dim = 0, rotary_dim = 0;
  std::int64_t tokens = 0;
  std::int64_t seq_len = 1;  // tokens per sequence (all tokens when one sequence)
  std::size_t esize = 0;
  std::array<int, 2> heads{};
  std::array<std::int64_t, 2> head_stride{}, token_stride{}, seq_stride{}, base{}, elements{};
  std::int64_t offset(int w, std::int64_t token, int head, int channel) const {
    return base[w] + (token / seq_len) * seq_stride[w] + (token % seq_len) * token_stride[w] +
           head * head_stride[w] + channel;
  }
};
Geometry geometry(const Case& c);

// The first of a head's `head_dim` channels (contiguous, `esize` bytes each:
// Geometry::offset(w, t, h, 0) + j) whose bytes differ between a and b, or
// -1: one compare per head, element by element only to name a difference.
int first_differing_channel(const unsigned char* a, const unsigned char* b, int head_dim, std::size_t esize);

// The strides a kernel is called with (apply_params). A kernel that reads
// sequence strides (ABI 1.2, CAP_SEQ_STRIDES: `granted`) gets every batched
// case as it is; any other kernel gets it as one run of tokens where that
// describes the same elements (sequences back to back, or one token each),
// else nullopt: the case is outside its capabilities.
struct CallStrides {
  std::array<std::int64_t, 2> token_stride{}, head_stride{}, seq_stride{};
  std::int64_t seq_len = 0;  // 0: one run of tokens
};
std::optional<CallStrides> call_strides(const Case& c, const Geometry& g, bool granted);

// Storage bytes of q (bytes[0]) and k (bytes[1]), padding included.
struct QkBuffers {
  std::array<ByteBuffer, 2> bytes;
};

// Inputs drawn from the case's data seed; padding holds canary bytes.
QkBuffers make_inputs(const Case& c);
// Canary byte at byte index i of a buffer (a pattern no arithmetic produces:
// 0xa5 0x7f is a NaN in every storage dtype).
inline unsigned char canary_byte(std::size_t i) { return (i % 2) ? 0x7f : 0xa5; }
void fill_canary(unsigned char* p, std::size_t bytes);
// What an out-of-place output holds before a call (core/kernel/kernel_call.h),
// drawn per call (its first 64 KiB, repeated beyond) from a stream keyed by
// the call itself (seed_poison below): other calls get other bytes, so no
// kernel can tell the harness's buffer from a production one, and the same
// call gets the same bytes, so a failure reproduces from its line:
//   kNan     a NaN with a random sign and payload in every element: an
//            element never written is judged wrong;
//   kFinite  random finite values (any sign, magnitudes 2^-8 .. 2^8): what
//            a reused allocation holds;
//   kInput   a copy of the call's input: the stale tensor a caller
//            rotating into last step's buffer hands over;
//   kZero    every byte zero: a fresh allocation (torch.zeros, a calloc'd
//            or freshly mapped page), so a kernel that computes only when
//            its output holds something else is caught (issue #48).
// A kernel whose result depends on which it got (it reads its output, or
// computes only on a NaN) is caught by conformance's two calls, which never
// draw the same kind (call_kernel_twice).
enum class PoisonKind { kNan, kFinite, kInput, kZero };
inline constexpr int kPoisonKinds = 4;
const char* poison_kind_name(PoisonKind k);
// A kind at random; `other_than` (when given) is never drawn.
PoisonKind draw_poison_kind(const PoisonKind* other_than = nullptr);
// `input`: the input bytes for kInput (as many as `bytes`).
void fill_poison(unsigned char* p, std::size_t bytes, ropecheck_dtype_t dtype, PoisonKind kind = PoisonKind::kNan,
                 const unsigned char* input = nullptr);
// Random bytes from this thread's poison stream, fresh per call (one of the
// states a KV cache arrives in: core/cases/kv_write_case.h, fill_cache_initial).
void fill_random_bytes(unsigned char* p, std::size_t bytes);
// A number from the same stream, below n (> 0): which state a buffer
// arrives in, drawn per call.
std::uint64_t draw_below(std::uint64_t n);
// Restarts this thread's poison stream (the poisons, a KV cache's initial
// state and its random bytes) at `key`. call_kernel restarts it from the call
// itself (core/kernel/poison_key.h), so what every buffer arrives holding
// follows from the case and the kernel, and a failure's one-line reproduce
// command hands the kernel the same bytes again, whichever jobs, threads or
// other properties ran before it.
void seed_poison(std::uint64_t key);
// Stores v (exactly representable in dtype) at element i.
void store_value(unsigned char* base, std::int64_t i, ropecheck_dtype_t t, double v);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_CASES_BUFFERS_H_
