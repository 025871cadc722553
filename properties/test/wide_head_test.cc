// SPDX-License-Identifier: MIT
// IsOrthogonalWithPositiveOrientation on the widest head a config may name
// (head_dim 4096) probes a bounded sample of pairs: the kernel is called on
// 64 basis vectors, not 4096 (a dense probe took 19 s and 5.3 GB for one
// case, the figure), and still fails a kernel whose one bad pair is
// among the probed
// (the last pair is always probed: loop-bound bugs sit there).
#include <cmath>
#include <cstring>

#include <gtest/gtest.h>

#include "impls/registry.h"
#include "properties/property.h"

namespace ropecheck::prop {
namespace {

const ropecheck_impl_t* g_inner = nullptr;
std::int64_t g_tokens = 0;
bool g_break_last_pair = false;

// scalar_naive (fp32, interleaved here), recording the token count;
// optionally reflecting the last pair of every head (its second output
// negated: determinant -1), a bug orthogonality alone must catch.
ropecheck_status_t recording_apply(void*, const ropecheck_apply_params_t* p, char* err, std::size_t n) {
  g_tokens = std::max(g_tokens, p->num_tokens);
  const ropecheck_status_t st = g_inner->apply(g_inner->ctx, p, err, n);
  if (st != ROPECHECK_OK || !g_break_last_pair) return st;
  for (std::int64_t t = 0; t < p->num_tokens; ++t) {
    float* q = static_cast<float*>(p->q_out) + t * p->q_token_stride + p->rotary_dim - 1;
    *q = -*q;
  }
  return st;
}

Case wide_case(int head_dim) {
  Case c = make_case(Suite::kQuick, 1, 0);
  c.shape = {head_dim, head_dim};
  c.freq = ref::FreqSpec{};
  c.dtype = ROPECHECK_DTYPE_F32;
  c.layout = ROPECHECK_LAYOUT_INTERLEAVED;  // the last pair is channels (d-2, d-1)
  c.positions = {12345};
  c.tokens = 1;
  return c;
}

TEST(WideHead, OrthogonalityProbesASampleOfPairs) {
  g_inner = find_impl("scalar_naive");
  ASSERT_NE(g_inner, nullptr);
  ropecheck_impl_t impl = *g_inner;
  impl.apply = recording_apply;
  const Property* p = find_property("IsOrthogonalWithPositiveOrientation");
  ASSERT_NE(p, nullptr);
  for (int d : {64, 4096}) {
    g_tokens = 0;
    g_break_last_pair = false;
    CaseContext ok(wide_case(d));
    const PropertyResult r = p->check(impl, ok);
    EXPECT_EQ(r.outcome, Outcome::kPass) << d << ": " << r.message;
    EXPECT_EQ(g_tokens, d <= 64 ? d : 64) << "basis vectors probed at head_dim " << d;
    g_break_last_pair = true;
    CaseContext bad(wide_case(d));
    const PropertyResult f = p->check(impl, bad);
    EXPECT_EQ(f.outcome, Outcome::kFail) << d;
    EXPECT_NE(f.message.find("a reflection"), std::string::npos) << f.message;
    if (d > 64) {
      EXPECT_NE(f.message.find("probing 32 of 2048 pairs"), std::string::npos) << f.message;
    }
  }
}

}  // namespace
}  // namespace ropecheck::prop
