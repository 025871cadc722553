// SPDX-License-Identifier: MIT
// The bug classes a golden export's invalid and acceptable outputs are
// marked with (manifest "bugClasses", Wycheproof's bug types), each
// defined once, and the class and published bug of each row of the bug
// catalogue (mutants/mutant_list.h) whose outputs an export stores. The
// catalogue's description stays the one account of what a mutant does
// wrong; a published bug named here is quoted from it (golden_test checks
// both, and that every catalogue row has a class).
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

struct MutantClass {
  const char* mutant;         // the catalogue's implementation name, "mutant_<bug>"
  const char* bug_class;      // a name of bug_class_catalog()
  const char* published_bug;  // the tracker entry the catalogue row cites, "" when it cites none
  // "" when a plain golden case can show the bug; else why none can (a
  // plain case is one sequence, in place, with q and k, its whole cos/sin
  // cache and no cache write or qk-norm): the exporter does not call the row
  // there. A row granting the KV-cache write, the qk-norm or the caller's
  // cos/sin cache runs on every fused case with that part
  // (golden/suites/fused_suites.h) whatever this says (outputs.h, rows_granting).
  const char* not_shown = "";
};
std::span<const MutantClass> mutant_classes();
// nullptr for a name no row of the table has.
const MutantClass* find_mutant_class(std::string_view mutant);

}  // namespace ropecheck::golden

#endif  // ROPECHECK_GOLDEN_CATALOG_BUG_CLASSES_H_
