// The pieces every check is built from: a case's storage geometry and input
// bits, the exact reference output for any inputs, and one call of an
// implementation through the C ABI. Conformance and every property compose
// these, so there is one place that lays out tensors and calls kernels.
#ifndef ROPECHECK_HARNESS_H_
#define ROPECHECK_HARNESS_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "ropecheck/cases.h"
#include "ropecheck/error_model.h"
#include "ropecheck/kernel_abi.h"

namespace ropecheck {

// Where a case's elements live: tensor w = 0 (q) or 1 (k).
struct Geometry {
  int head_dim = 0, rotary_dim = 0;
  std::int64_t tokens = 0;
  std::size_t esize = 0;
  std::array<int, 2> heads{};
  std::array<std::int64_t, 2> head_stride{}, token_stride{}, elements{};
  std::int64_t offset(int w, std::int64_t token, int head, int channel) const {
    return token * token_stride[w] + head * head_stride[w] + channel;
  }
};
Geometry geometry(const Case& c);

// Storage bytes of q and k, padding included.
struct Tensors {
  std::array<std::vector<unsigned char>, 2> t;
};

// Inputs drawn from the case's data seed; padding holds canary bytes.
Tensors make_inputs(const Case& c);
// Canary byte at byte index i of a buffer (a pattern no arithmetic produces).
inline unsigned char canary_byte(std::size_t i) { return (i % 2) ? 0x7f : 0xa5; }
void fill_canary(unsigned char* p, std::size_t bytes);
// Stores v (exactly representable in dtype) at element i.
void store_value(unsigned char* base, std::int64_t i, ropecheck_dtype_t t, double v);

// The exact result of a case on given inputs: one entry per rotated element,
// the two elements of a pair adjacent (first, second).
struct ReferenceElement {
  ElementTerms terms;
  double rounded = 0;  // exact value correctly rounded to the storage dtype
  std::int64_t offset = 0;
  std::int64_t token = 0;
  int head = 0, channel = 0;
};
struct ReferenceResult {
  double attention_factor = 1;
  std::array<std::vector<ReferenceElement>, 2> t;
};
ReferenceResult compute_reference(const Case& c, const Tensors& in);

// One call of an implementation. The output buffers are the input copy
// (in place) or canary-filled buffers (out of place).
struct RunResult {
  ropecheck_status_t status = ROPECHECK_OK;
  std::string message;
  Tensors out;
};
// cache_rows_short > 0 hands a cache kernel a cos/sin cache that many rows
// shorter than the largest position needs (the bounds-check property).
RunResult execute(const ropecheck_impl_t& impl, const Case& c, const Tensors& in, int cache_rows_short = 0);

// Largest cos/sin cache (elements) the harness builds for a cache kernel;
// cases that need more are out of scope for it. Default 2^24 (64 MiB of
// fp32); the differential fuzzer lowers it to keep executions fast.
void set_max_cache_elements(std::int64_t n);
std::int64_t max_cache_elements();

// Skip reason when the case lies outside the implementation's declared
// capabilities (or the harness's cache limit); empty when it is in scope.
std::string out_of_scope(const ropecheck_impl_t& impl, const Case& c);

}  // namespace ropecheck

#endif  // ROPECHECK_HARNESS_H_
