// The in-place roofline of the CPU benchmark: one streaming read-modify-write
// pass over a buffer, with the widest vectors of the best Highway target the
// CPU supports (dispatched at run time, as the kernels are), so the roofline
// is never slower than the kernels merely for narrower loads. The "modify" is
// an integer XOR with a zero the compiler cannot see: no floating-point
// assist on odd bit patterns (bf16 pairs read as fp32 may be subnormal).
#ifndef ROPECHECK_BENCH_RMW_PASS_H_
#define ROPECHECK_BENCH_RMW_PASS_H_

#include <cstddef>
#include <cstdint>

namespace ropecheck::bench {

// XORs every 32-bit word of [p, p + bytes) with `zero` (pass 0); bytes a
// multiple of 4.
void rmw_pass(unsigned char* p, std::size_t bytes, std::uint32_t zero);

// The Highway target rmw_pass runs on.
const char* rmw_target();

}  // namespace ropecheck::bench

#endif  // ROPECHECK_BENCH_RMW_PASS_H_
