// SPDX-License-Identifier: MIT
// The `ropecheck` command line: the definitions of cli/command_line.h.
#include "cli/command_line.h"

#include <exception>
#include <iostream>
#include <vector>

#include "cli/build_commands.h"
#include "cli/list_command.h"
#include "cli/properties_command.h"
#include "cli/run_main.h"
#include "cli/verdict_supervisor.h"
#include "cli/zoo_command.h"
#include "core/isolation/interrupt.h"

namespace ropecheck::cli {

CommandLine::CommandLine() {
  app.require_subcommand(1);
  list = add_list_command(app);
  check = add_check_command(app, check_args);
  merge = add_merge_command(app, merge_args);
  props = add_properties_command(app);
  zoo = add_zoo_command(app, zoo_args);
  add_build_commands(*this);  // fuzz, mutants, golden, bench: cli/build_commands.h
}

int parse_command_line(CommandLine& cl, int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  try {
    // CLI11 takes the arguments after the program name, last first.
    std::vector<std::string> args;
    for (int i = argc - 1; i >= 1; --i) args.emplace_back(argv[i]);
    cl.app.parse(args);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return cl.app.exit(e, out, err);  // --help
    err << "error: " << e.what() << "\n";
    if (dynamic_cast<const CLI::RequiredError*>(&e) || dynamic_cast<const CLI::ExtrasError*>(&e))
      err << "run with --help for the options\n";
    return 2;
  }
  std::string bad;
  if (*cl.check) {
    GateOptions o;
    bad = validate_check_args(cl.check_args, &o);
  } else {
    bad = validate_build_command(cl);
  }
  if (!bad.empty()) {
    err << "error: " << bad << "\n";
    return 2;
  }
  return kRunCommand;
}

int run_command(CommandLine& cl, const char* argv0) {
  try {
    if (*cl.list) return run_list();
    if (*cl.check) return run_check(cl.check_args);
    if (*cl.merge) return run_merge(cl.merge_args);
    if (*cl.props) return run_properties();
    if (*cl.zoo) return run_zoo(cl.zoo_args);
    if (const int rc = run_build_command(cl, argv0); rc != kNotABuildCommand) return rc;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return interrupt_signal() ? interrupted_exit_code() : 2;
  }
  return 2;
}

int run_main(int argc, char** argv) {
  CommandLine cl;
  const int rc = parse_command_line(cl, argc, argv, std::cout, std::cerr);
  if (rc != kRunCommand) return rc;
  // Exit status 0 only with a verdict written (cli/verdict_supervisor.h).
  return run_supervised([&] { return run_command(cl, argv[0]); });
}

}  // namespace ropecheck::cli
