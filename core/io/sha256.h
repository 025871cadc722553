// SPDX-License-Identifier: MIT
// SHA-256 (OpenSSL's EVP digest) as lowercase hex: the checksum of every
// file ropecheck writes for another run to read back (golden vectors'
// manifest and SHA256SUMS, the gate's shard reports), verified on reading.
#ifndef ROPECHECK_CORE_IO_SHA256_H_
#define ROPECHECK_CORE_IO_SHA256_H_

#include <string>
#include <string_view>

namespace ropecheck {

std::string sha256_hex(std::string_view data);

}  // namespace ropecheck

#endif  // ROPECHECK_CORE_IO_SHA256_H_
