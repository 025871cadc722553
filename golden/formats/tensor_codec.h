// SPDX-License-Identifier: MIT
// What the three golden file formats share: the dtype names each format
// uses, element counts checked before any multiplication can overflow, and
// little-endian integers. Internal to golden/.
#ifndef ROPECHECK_GOLDEN_FORMATS_TENSOR_CODEC_H_
#define ROPECHECK_GOLDEN_FORMATS_TENSOR_CODEC_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "golden/formats/tensor_file.h"

namespace ropecheck::golden::codec {

// Largest element count of one tensor a reader accepts.
inline constexpr std::int64_t kMaxElements = std::int64_t{1} << 34;

struct DtypeNames {
  TensorDtype t;
  const char* ours;
  const char* safetensors;
  const char* npy;
};
const DtypeNames& names_of(TensorDtype t);
// The dtype whose name in one format (picked by `pick`) is s.
bool dtype_from(std::string_view s, TensorDtype* out, const char* DtypeNames::*pick);

std::int64_t checked_elements(const std::vector<std::int64_t>& shape, const std::string& file,
                              const std::string& field);
void put_u64le(std::string& s, std::uint64_t v);
std::uint64_t get_le(std::string_view d, std::size_t at, int bytes);

}  // namespace ropecheck::golden::codec

#endif  // ROPECHECK_GOLDEN_FORMATS_TENSOR_CODEC_H_
