#include <iostream>

#include "cli/commands.h"
#include "cli/scenario_options.h"
#include "runtime/consistency/controller.h"

namespace po = boost::program_options;

namespace pstwin::cli {

int validate_command(const std::vector<std::string>& args) {
  po::options_description desc("validate options");
  po::positional_options_description pos;
  add_scenario_options(desc, pos);
  int code = 0;
  auto vm = parse_args(args, desc, pos, "usage: pstwin validate SCENARIO.json [--set /ptr=value]", code);
  if (!vm) return code;
  auto scenario = load_scenario_from(*vm);
  if (!scenario) return 2;
  std::cout << "scenario '" << scenario->name << "' is valid: " << scenario->cluster.workers
            << " workers, " << scenario->cluster.servers << " servers, model "
            << scenario->model.type << ", variants:";
  for (const auto& v : scenario->consistency) std::cout << ' ' << v.name;
  std::cout << "\n";
  return 0;
}

}  // namespace pstwin::cli
