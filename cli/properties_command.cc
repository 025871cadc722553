// SPDX-License-Identifier: MIT
// `ropecheck properties`: the definitions of cli/properties_command.h.
#include "cli/properties_command.h"

#include <iostream>

#include "properties/property.h"

namespace ropecheck::cli {

CLI::App* add_properties_command(CLI::App& app) {
  return app.add_subcommand("properties", "List the kernel properties the gate runs");
}

int run_properties() {
  for (const auto& p : prop::kernel_properties()) std::cout << "Rope/" << p.name << "\n  " << p.summary << "\n";
  return 0;
}

}  // namespace ropecheck::cli
