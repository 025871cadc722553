// SPDX-License-Identifier: MIT
// SHA-256 as lowercase hex, through OpenSSL's EVP digest.
#include "core/io/sha256.h"

#include <openssl/evp.h>

#include <stdexcept>

namespace ropecheck {

std::string sha256_hex(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("sha256: OpenSSL EVP_Digest failed");
  static const char kHex[] = "0123456789abcdef";
  std::string s;
  for (unsigned int i = 0; i < len; ++i) {
    s.push_back(kHex[md[i] >> 4]);
    s.push_back(kHex[md[i] & 0xf]);
  }
  return s;
}

}  // namespace ropecheck
