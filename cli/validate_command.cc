#include <iostream>

#include "cli/commands.h"
#include "cli/launch_failures.h"
#include "cli/memory_fit.h"
#include "cli/run_checks.h"
#include "cli/scenario_options.h"
#include "cli/simgrid_cfg_option.h"
#include "runtime/consistency/controller.h"
#include "runtime/scenario/cluster_costs.h"
#include "runtime/count_text.h"

namespace po = boost::program_options;

namespace pstwin::cli {

int validate_command(const std::vector<std::string>& args) {
  po::options_description desc("validate options");
  po::positional_options_description pos;
  add_scenario_options(desc, pos);
  add_simgrid_cfg_option(desc);
  int code = 0;
  auto vm = parse_args(args, desc, pos,
                       "usage: pstwin validate SCENARIO.json [--set /ptr=value ...] [--cfg NAME:VALUE ...]\n"
                       "Checks the scenario, and asks SimGrid whether it takes each of its options\n"
                       "(simulation.cfg, then --cfg), without running anything.",
                       code);
  if (!vm) return code;
  auto scenario = load_scenario_from(*vm);
  if (!scenario) return 2;
  if (!take_simgrid_options(*vm, *scenario)) return 2;
  // The data of every run too, and each run against its model's size: what it finds is what
  // simulate and launch would refuse, with the same message. A size that only the whole data
  // tells (a LIBSVM or ratings file over 1 MiB) is read whole, as launch does before any node
  // starts: a fraction of a second for a9a's 3.4 MB, and what simulate reads anyway.
  const auto data = check_runs_or_report(*vm, *scenario, /*read_whole=*/true);
  if (!data) return 2;
  std::cout << "scenario '" << scenario->name << "' is valid: " << count_text(scenario->cluster.workers, "worker")
            << ", " << count_text(scenario->cluster.servers, "server") << ", model "
            << scenario->model.type << ", variants:";
  for (const auto& v : scenario->consistency) std::cout << ' ' << v.name;
  if (!scenario->simulation.cfg.empty()) {
    std::cout << "; SimGrid options:";
    for (const auto& option : scenario->simulation.cfg) std::cout << ' ' << option;
  }
  std::cout << "\n";
  for (const std::string& line : host_cost_lines(scenario->cluster)) std::cout << line << "\n";
  // Each --set as it landed: the pointer and the value the scenario now holds there.
  if (vm->count("set"))
    for (const std::string& set : (*vm)["set"].as<std::vector<std::string>>()) {
      std::string pointer = set.substr(0, set.find('='));
      // "/list/-" appended: the value is the list's last element now.
      nlohmann::json::json_pointer at(pointer);
      if (!at.empty() && at.back() == "-") {
        at = at.parent_pointer();
        at.push_back(std::to_string(scenario->source.at(at).size() - 1));
        pointer = at.to_string();
      }
      // The include is replaced by the file's keys (cluster_include.h): say what was read.
      if (pointer == "/cluster/include") {
        std::cout << "set: " << pointer << " = " << set.substr(set.find('=') + 1) << " (its keys included)\n";
        continue;
      }
      // A null --set removes the key: say so rather than look it up.
      std::cout << "set: " << pointer << " = "
                << (scenario->source.contains(at) ? scenario->source.at(at).dump() : std::string("(removed)"))
                << "\n";
    }
  // What each variant changes, when it is more than its consistency.
  if (scenario->source.contains("variants"))
    for (const auto& v : scenario->source["variants"])
      if (v.contains("set"))
        for (const auto& [pointer, value] : v["set"].items())
          std::cout << "variant " << v["name"].get<std::string>() << ": " << pointer << " = "
                    << (value.is_null() ? std::string("(removed)") : value.dump()) << "\n";
  for (const std::string& line : data->checked) std::cout << "checked: " << line << "\n";
  for (const std::string& line : data->not_checked) std::cout << "not checked: " << line << "\n";
  // What each variant's model needs in memory; a job larger than this machine is said, not refused
  // (a launch over a hostfile spreads it), though simulate, sweep and a launch without one refuse it.
  const std::uint64_t machine = machine_memory_bytes();
  for (const RunMemory& m : data->memory) {
    std::cout << memory_line(m) << "\n";
    if (const std::string warning = memory_warning(m, machine); !warning.empty())
      std::cerr << "pstwin validate: " << warning << "\n";
  }
  std::cout << failure_notes(*scenario);
  return 0;
}

}  // namespace pstwin::cli
