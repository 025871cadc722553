// SPDX-License-Identifier: MIT
// The bug classes a golden export's invalid and acceptable outputs are
// marked with (manifest "bugClasses", Wycheproof's bug types), each
// defined once. Each row of the bug catalogue (mutants/mutant_list.h)
// names its class, the published bug it reproduces and whether a golden
// case can show it in its own columns; the command hands them down with
// the row (golden/outputs/outputs.h, MutantSource), and golden_test checks
// that every row's class is one of these.
#ifndef ROPECHECK_GOLDEN_CATALOG_BUG_CLASSES_H_
#define ROPECHECK_GOLDEN_CATALOG_BUG_CLASSES_H_

#include <span>
#include <string_view>

namespace ropecheck::golden {

struct BugClassInfo {
  const char* name;         // CamelCase, as flags are named
  const char* description;  // what goes wrong
};
std::span<const BugClassInfo> bug_class_catalog();
const BugClassInfo* find_bug_class(std::string_view name);

}  // namespace ropecheck::golden

#endif  // ROPECHECK_GOLDEN_CATALOG_BUG_CLASSES_H_
