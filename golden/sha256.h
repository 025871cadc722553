// SHA-256 of golden files (OpenSSL's EVP digest), as lowercase hex: the
// checksum the manifest and SHA256SUMS record and every reader verifies.
#ifndef ROPECHECK_GOLDEN_SHA256_H_
#define ROPECHECK_GOLDEN_SHA256_H_

#include <string>
#include <string_view>

namespace ropecheck::golden {

std::string sha256_hex(std::string_view data);

}  // namespace ropecheck::golden

#endif  // ROPECHECK_GOLDEN_SHA256_H_
