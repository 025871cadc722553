// SPDX-License-Identifier: MIT
// High-precision number types of the reference.
//
// MpfrReal (MPFR through Boost.Multiprecision) is the reference: its
// sin/cos/exp/log/pow are correctly rounded with exact argument reduction.
// BinReal (Boost's header-only cpp_bin_float) is the independent second
// reference that checks it, as TestFloat checks SoftFloat with a slow one.
// Precision is a template parameter: at least that many bits. MpfrReal<128>
// holds 134: mpfr_float_backend takes decimal digits, 128 bits ask for 40,
// and Boost turns 40 digits back into 134 bits (its digits10-to-bits
// conversion rounds up with a guard); every MPFR result of the reference is
// rounded to those 134 bits (docs/REFERENCE.md).
#ifndef ROPECHECK_REFERENCE_REAL_H_
#define ROPECHECK_REFERENCE_REAL_H_

#include <boost/multiprecision/cpp_bin_float.hpp>
#include <boost/multiprecision/mpfr.hpp>

namespace ropecheck::ref {

namespace mp = boost::multiprecision;

// mpfr_float_backend is parameterised in decimal digits; pick enough digits
// for at least Bits bits (log10(2) < 0.30103).
template <unsigned Bits>
using MpfrReal = mp::number<mp::mpfr_float_backend<(Bits * 30103u) / 100000u + 2u>, mp::et_off>;

template <unsigned Bits>
using BinReal = mp::number<mp::cpp_bin_float<Bits, mp::digit_base_2>, mp::et_off>;

inline constexpr unsigned kRealBits = 128;  // precision asked for (bits); Real holds 134
using Real = MpfrReal<kRealBits>;
using RealHigh = MpfrReal<256>;  // cross-precision check
using RealAlt = BinReal<128>;    // independent backend check

}  // namespace ropecheck::ref

#endif  // ROPECHECK_REFERENCE_REAL_H_
