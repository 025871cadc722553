// SPDX-License-Identifier: MIT
// Fuzzes the three golden tensor-file readers (safetensors, npy, hex JSON);
// the first byte picks the format. Every input must give tensors or a
// FormatError naming the file; accepted tensors must survive a write and
// read back unchanged (bit for bit).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "golden/formats/tensor_file.h"

using namespace ropecheck::golden;

namespace {

bool same(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].name != b[i].name || a[i].dtype != b[i].dtype || a[i].shape != b[i].shape || a[i].bytes != b[i].bytes)
      return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const int format = data[0] % 3;
  const std::string_view file(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::vector<Tensor> got;
  try {
    if (format == 0) got = read_safetensors(file, "fuzz.safetensors");
    if (format == 1) got = {read_npy(file, "fuzz.npy", "t")};
    if (format == 2) got = read_hex_json(file, "fuzz.json");
  } catch (const FormatError& e) {
    if (std::string_view(e.what()).rfind("fuzz.", 0) != 0) {
      std::fprintf(stderr, "FormatError does not name the file: %s\n", e.what());
      std::abort();
    }
    return 0;
  }
  std::vector<Tensor> back;
  if (format == 0) back = read_safetensors(write_safetensors(got), "again");
  if (format == 1) back = {read_npy(write_npy(got[0]), "again", "t")};
  if (format == 2) {
    // NaN payloads have no hex form; everything else must round-trip.
    for (const Tensor& t : got)
      for (std::int64_t i = 0; i < t.elements(); ++i)
        if (t.dtype != TensorDtype::kI64 && std::isnan(t.value(i))) return 0;
    back = read_hex_json(write_hex_json(got), "again");
  }
  if (!same(got, back)) {
    std::fprintf(stderr, "format %d: tensors changed in a write/read round trip\n", format);
    std::abort();
  }
  return 0;
}
