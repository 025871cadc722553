// SPDX-License-Identifier: MIT
// safetensors files of golden cases, every tensor of a case in one file.
// Layout (huggingface/safetensors, "Format"): u64 little-endian header size
// N, N bytes of JSON {name: {dtype, shape, data_offsets: [begin, end]}} with
// optional "__metadata__", then the byte buffer the offsets index, covered
// without holes. We pad the header with spaces to an 8-byte boundary.
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/config/json_reader.h"

#include "golden/formats/tensor_codec.h"
#include "golden/formats/tensor_file.h"

namespace ropecheck::golden {

using namespace codec;
using nlohmann::json;

std::string write_safetensors(const std::vector<Tensor>& tensors) {
  json header = json::object();
  std::uint64_t at = 0;
  for (const auto& t : tensors) {
    header[t.name] = {{"dtype", names_of(t.dtype).safetensors},
                      {"shape", t.shape},
                      {"data_offsets", {at, at + t.bytes.size()}}};
    at += t.bytes.size();
  }
  std::string h = header.dump();
  while ((8 + h.size()) % 8) h.push_back(' ');
  std::string out;
  out.reserve(8 + h.size() + at);
  put_u64le(out, h.size());
  out += h;
  for (const auto& t : tensors) out.append(reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size());
  return out;
}

std::vector<Tensor> read_safetensors(std::string_view data, const std::string& file) {
  if (data.size() < 8) throw FormatError(file, "header size", "file is " + std::to_string(data.size()) + " bytes, shorter than the 8-byte header size");
  if (data.size() > kMaxTensorFileBytes) throw FormatError(file, "size", "larger than 1 GiB");
  const std::uint64_t n = get_le(data, 0, 8);
  if (n > data.size() - 8)
    throw FormatError(file, "header size", std::to_string(n) + " exceeds the " + std::to_string(data.size() - 8) + " bytes after it (truncated file?)");
  json header;
  try {
    header = parse_json_strictly(data.substr(8, n));
  } catch (const ref::ConfigError& e) {  // invalid JSON, or a tensor named twice
    throw FormatError(file, e.field() == "json" ? "header" : "header: " + e.field(), e.message());
  }
  if (!header.is_object()) throw FormatError(file, "header", "must be a JSON object");
  const std::string_view buffer = data.substr(8 + n);
  std::vector<std::pair<std::uint64_t, Tensor>> found;
  for (auto it = header.begin(); it != header.end(); ++it) {
    if (it.key() == "__metadata__") continue;
    const std::string field = "tensor '" + it.key() + "'";
    const json& e = it.value();
    if (!e.is_object() || !e.contains("dtype") || !e.contains("shape") || !e.contains("data_offsets"))
      throw FormatError(file, field, "needs dtype, shape and data_offsets");
    Tensor t;
    t.name = it.key();
    if (!e["dtype"].is_string() ||
        !dtype_from(e["dtype"].get<std::string>(), &t.dtype, &DtypeNames::safetensors))
      throw FormatError(file, field + ".dtype", "must be one of F64, F32, F16, BF16, I64, U8");
    if (!e["shape"].is_array() || e["shape"].size() > 8)
      throw FormatError(file, field + ".shape", "must be an array of at most 8 dimensions");
    for (const auto& d : e["shape"]) {
      if (!d.is_number_integer()) throw FormatError(file, field + ".shape", "dimensions must be integers");
      t.shape.push_back(d.get<std::int64_t>());
    }
    const std::int64_t count = checked_elements(t.shape, file, field + ".shape");
    const json& off = e["data_offsets"];
    if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() || !off[1].is_number_unsigned())
      throw FormatError(file, field + ".data_offsets", "must be two non-negative integers");
    const std::uint64_t b = off[0].get<std::uint64_t>(), end = off[1].get<std::uint64_t>();
    if (b > end || end > buffer.size())
      throw FormatError(file, field + ".data_offsets", "[" + std::to_string(b) + ", " + std::to_string(end) +
                                                           ") outside the " + std::to_string(buffer.size()) +
                                                           "-byte buffer (truncated file?)");
    if (end - b != static_cast<std::uint64_t>(count) * tensor_dtype_size(t.dtype))
      throw FormatError(file, field + ".data_offsets", "span of " + std::to_string(end - b) +
                                                           " bytes does not match shape x dtype size");
    t.bytes.assign(buffer.begin() + static_cast<std::ptrdiff_t>(b), buffer.begin() + static_cast<std::ptrdiff_t>(end));
    found.emplace_back(b, std::move(t));
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::uint64_t expect = 0;
  std::vector<Tensor> out;
  for (auto& [b, t] : found) {
    if (b != expect) throw FormatError(file, "tensor '" + t.name + "'.data_offsets", "overlaps or leaves a hole in the buffer");
    expect += t.bytes.size();
    out.push_back(std::move(t));
  }
  if (expect != buffer.size())
    throw FormatError(file, "buffer", std::to_string(buffer.size() - expect) + " trailing bytes no tensor covers");
  return out;
}

}  // namespace ropecheck::golden
