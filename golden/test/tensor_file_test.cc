// SPDX-License-Identifier: MIT
// The three golden file formats: exact round trips for every dtype, and
// readers that refuse every truncation and malformed header with an error
// naming the file, never a crash.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "core/io/sha256.h"
#include "golden/formats/tensor_file.h"

namespace ropecheck::golden {
namespace {

std::vector<Tensor> sample() {
  std::vector<Tensor> ts;
  auto add = [&](const char* n, TensorDtype d, std::vector<std::int64_t> shape, std::size_t bytes) {
    Tensor t{n, d, shape, std::vector<unsigned char>(bytes)};
    for (std::size_t i = 0; i < bytes; ++i) t.bytes[i] = static_cast<unsigned char>(i * 37 + 11);
    ts.push_back(t);
  };
  const double f64[] = {0.0, -0.0, 1.5, -0x1p-1074, 0x1.fffffffffffffp+1023, 3.0e-310};
  Tensor a{"a64", TensorDtype::kF64, {2, 3}, std::vector<unsigned char>(48)};
  std::memcpy(a.bytes.data(), f64, 48);
  ts.push_back(a);
  const float f32[] = {1.0f, -0x1p-149f, 3.4e38f, -0.0f};
  Tensor b{"b32", TensorDtype::kF32, {4}, std::vector<unsigned char>(16)};
  std::memcpy(b.bytes.data(), f32, 16);
  ts.push_back(b);
  // Every bit pattern but NaN is a value in f16 / bf16; avoid the NaN range.
  add("c16", TensorDtype::kF16, {2, 2, 2}, 16);
  add("dbf", TensorDtype::kBF16, {8}, 16);
  for (auto& t : ts)
    if (t.dtype == TensorDtype::kF16 || t.dtype == TensorDtype::kBF16)
      for (std::size_t i = 1; i < t.bytes.size(); i += 2) t.bytes[i] &= 0x3f;
  add("pos", TensorDtype::kI64, {3}, 24);
  add("empty", TensorDtype::kF32, {0, 4}, 0);
  return ts;
}

void expect_same(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_EQ(a[i].dtype, b[i].dtype) << a[i].name;
    EXPECT_EQ(a[i].shape, b[i].shape) << a[i].name;
    EXPECT_EQ(a[i].bytes, b[i].bytes) << a[i].name;
  }
}

TEST(GoldenFormats, SafetensorsRoundTripsBitExactAndAligned) {
  const auto ts = sample();
  const std::string s = write_safetensors(ts);
  std::uint64_t n = 0;
  std::memcpy(&n, s.data(), 8);
  EXPECT_EQ((8 + n) % 8, 0u) << "data must start 8-byte aligned";
  expect_same(read_safetensors(s, "x.safetensors"), ts);
}

TEST(GoldenFormats, NpyRoundTripsBitExactWith64ByteHeader) {
  for (const Tensor& t : sample()) {
    const std::string s = write_npy(t);
    EXPECT_EQ((s.size() - t.bytes.size()) % 64, 0u) << t.name;
    expect_same({read_npy(s, "x.npy", t.name)}, {t});
  }
}

TEST(GoldenFormats, HexJsonRoundTripsBitExact) {
  const auto ts = sample();
  expect_same(read_hex_json(write_hex_json(ts), "x.json"), ts);
}

TEST(GoldenFormats, HexFloatsAreCanonicalAndExact) {
  EXPECT_EQ(format_hex_float(1.5), "0x1.8p+0");
  EXPECT_EQ(format_hex_float(-0.0), "-0x0p+0");
  EXPECT_EQ(format_hex_float(0x1p-1074), "0x0.0000000000001p-1022");
  EXPECT_EQ(format_hex_float(0x1.fffffffffffffp+1023), "0x1.fffffffffffffp+1023");
  EXPECT_EQ(format_hex_float(-HUGE_VAL), "-inf");
  for (double v : {0.1, -1e-310, 123456.789, 0x1p-1022, 65504.0}) {
    double back = 0;
    ASSERT_TRUE(parse_hex_float(format_hex_float(v), &back));
    EXPECT_EQ(std::memcmp(&back, &v, 8), 0) << v;
  }
  double x = 0;
  for (const char* bad : {"", "1.5", "0x", "0x1.8", "nan", "0x1p+1 ", "0x1.8p+1junk", "0xg.0p+0"})
    EXPECT_FALSE(parse_hex_float(bad, &x)) << bad;
}

TEST(GoldenFormats, HexJsonRefusesInexactValues) {
  Tensor t{"h", TensorDtype::kF16, {1}, {0, 0}};
  std::string s = write_hex_json({t});
  const auto at = s.find("0x0p+0");
  ASSERT_NE(at, std::string::npos);
  s.replace(at, 6, "0x1.0001p+0");  // needs 17 bits, f16 has 11
  try {
    read_hex_json(s, "h.json");
    FAIL() << "accepted a value fp16 cannot hold";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("h.json: tensors[0].values[0]"), std::string::npos) << e.what();
  }
}

// Every proper prefix of a file is refused with an error that names it.
TEST(GoldenFormats, EveryTruncationIsAClearError) {
  const auto ts = sample();
  const std::string files[] = {write_safetensors(ts), write_npy(ts[0]), write_hex_json(ts)};
  for (int f = 0; f < 3; ++f) {
    for (std::size_t n = 0; n < files[f].size(); n += (f == 2 ? 7 : 1)) {
      const std::string_view cut(files[f].data(), n);
      try {
        if (f == 0) read_safetensors(cut, "t.file");
        if (f == 1) read_npy(cut, "t.file", "a");
        if (f == 2) read_hex_json(cut, "t.file");
        ADD_FAILURE() << "format " << f << " accepted a prefix of " << n << " bytes";
      } catch (const FormatError& e) {
        EXPECT_EQ(std::string(e.what()).rfind("t.file: ", 0), 0u) << e.what();
      }
    }
  }
}

TEST(GoldenFormats, SafetensorsRefusesHolesOverlapsAndBadShapes) {
  auto header = [](const std::string& json, std::size_t data) {
    std::string s(8, '\0');
    const std::uint64_t n = json.size();
    std::memcpy(s.data(), &n, 8);
    return s + json + std::string(data, '\0');
  };
  const char* bad[] = {
      R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
      R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
      R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})",
      R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})",
      R"({"a":{"dtype":"Q8","shape":[2],"data_offsets":[0,8]}})",
      R"({"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]}})",
      R"([1,2])",
  };
  for (const char* h : bad) EXPECT_THROW(read_safetensors(header(h, 8), "b.safetensors"), FormatError) << h;
}

TEST(GoldenFormats, Sha256MatchesFipsVectors) {
  // FIPS 180-2, appendix B.1 and the empty message.
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

}  // namespace
}  // namespace ropecheck::golden
