// SPDX-License-Identifier: MIT
// A worker arms each call's layout as its difference from the protections it
// set for earlier calls (core/isolation/arena_protections.h, arm_layout): a guard
// page of one call lies inside a buffer of a later call placed over it, and
// that buffer must be writable then; when the first layout comes back, its
// guard pages must fault again. A copying kernel is called on a small and a
// large case in turn (each twice: a worker's calls alternate between its
// two regions), then writes one element past its q output.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/isolation/isolation.h"
#include "core/test/probe_kernel.h"

namespace ropecheck::arm_layout_test {
namespace {

constexpr int kHeadDim = 4;
constexpr std::int64_t kWritePastTheEnd = 1;

ropecheck_status_t copier(void*, const ropecheck_apply_params_t* p, char*, std::size_t) {
  const std::size_t n = static_cast<std::size_t>(p->num_tokens) * kHeadDim;
  std::memcpy(p->q_out, p->q_in, n * sizeof(float));
  std::memcpy(p->k_out, p->k_in, n * sizeof(float));
  if (static_cast<const std::int64_t*>(p->positions)[0] == kWritePastTheEnd)
    static_cast<volatile float*>(p->q_out)[n] = 1.0f;  // the first byte past q_out: its rear guard page
  return ROPECHECK_OK;
}

const ropecheck_impl_t* isolated_copier() {
  static const ropecheck_impl_t inner = test::probe_table("copier", copier);
  static const ropecheck_impl_t* isolated = [] {
    IsolationOptions o;
    o.mode = IsolationMode::kWorker;
    return isolate(&inner, o);
  }();
  return isolated;
}

// One call on `tokens` tokens of one q and one k head; the kernel's status
// and message, and whether both outputs came back equal to the inputs.
struct Result {
  ropecheck_status_t status;
  std::string message;
  bool copied;
};
Result call(std::int64_t tokens, std::int64_t command = 0) {
  const std::size_t n = static_cast<std::size_t>(tokens) * kHeadDim;
  std::vector<float> q_in(n), k_in(n), q_out(n, -1.0f), k_out(n, -1.0f);
  for (std::size_t i = 0; i < n; ++i) {
    q_in[i] = static_cast<float>(i);
    k_in[i] = -static_cast<float>(i);
  }
  std::vector<std::int64_t> positions(static_cast<std::size_t>(tokens), 0);
  positions[0] = command;
  const test::OneHeadCall args(tokens, kHeadDim, positions.data(), q_in.data(), q_out.data(), k_in.data(),
                               k_out.data());
  char err[1024] = {0};
  const ropecheck_impl_t* t = isolated_copier();
  Result r;
  r.status = t->apply(t->ctx, &args.p, err, sizeof err);
  r.message = err;
  r.copied = q_out == q_in && k_out == k_in;
  return r;
}

TEST(ArmLayout, EachLayoutIsArmedOverTheLastOneInItsRegion) {
  constexpr std::int64_t kSmall = 2, kLarge = 4096;  // 32 bytes, and 16 pages per buffer
  for (const std::int64_t tokens : {kSmall, kSmall, kLarge, kLarge, kSmall, kSmall, kLarge, kLarge, kSmall, kSmall}) {
    const Result r = call(tokens);
    ASSERT_EQ(r.status, ROPECHECK_OK) << tokens << " tokens: " << r.message;
    EXPECT_TRUE(r.copied) << tokens << " tokens";
  }
  // Both regions, the small layout again: its rear guard after q_out faults.
  for (int region = 0; region < 2; ++region) {
    const Result r = call(kSmall, kWritePastTheEnd);
    EXPECT_EQ(r.status, ROPECHECK_INTERNAL_ERROR) << r.message;
    EXPECT_NE(r.message.find("past the end of q_out"), std::string::npos) << r.message;
  }
  // And the large one after that (a new worker: the failing call retired it).
  for (int region = 0; region < 2; ++region) {
    EXPECT_EQ(call(kLarge, kWritePastTheEnd).status, ROPECHECK_INTERNAL_ERROR);
    const Result r = call(kLarge);
    EXPECT_EQ(r.status, ROPECHECK_OK) << r.message;
    EXPECT_TRUE(r.copied);
  }
}

}  // namespace
}  // namespace ropecheck::arm_layout_test
