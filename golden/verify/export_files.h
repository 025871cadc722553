// SPDX-License-Identifier: MIT
// Reading an export from disk, never trusting it: every file inside the
// export, regular and bounded in size, manifest.json checked against
// SHA256SUMS, each case file against its size and checksum in the manifest.
#ifndef ROPECHECK_GOLDEN_VERIFY_EXPORT_FILES_H_
#define ROPECHECK_GOLDEN_VERIFY_EXPORT_FILES_H_

#include <string>
#include <vector>

#include "golden/manifest/manifest.h"
#include "golden/formats/tensor_file.h"

namespace ropecheck::golden {

// Reads DIR/manifest.json, checked against DIR/SHA256SUMS (required), and
// SHA256SUMS against expect_sums_sha256 when given (how CI pins an export:
// checksums alone detect corruption, not tampering). An export with no case
// is refused.
Manifest load_manifest(const std::string& dir, const std::string& expect_sums_sha256 = {});
// The case's tensors by name, every file's size and checksum verified first.
std::vector<Tensor> load_case_tensors(const std::string& dir, const Manifest& m, const CaseEntry& e);
// Reads a file of the export whole; throws FormatError naming it, also when
// it is not a regular file (a symlink to /dev/zero, a FIFO, a directory) or
// larger than kMaxTensorFileBytes.
std::string read_export_file(const std::string& dir, const std::string& relative);

}  // namespace ropecheck::golden

#endif  // ROPECHECK_GOLDEN_VERIFY_EXPORT_FILES_H_
