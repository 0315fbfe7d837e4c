#include "cli/simgrid_cfg_option.h"

#include <iostream>
#include <vector>

#include "cli/command_name.h"
#include "cli/override_note.h"
#include "sim/simgrid_options.h"

namespace po = boost::program_options;

namespace pstwin::cli {

void add_simgrid_cfg_option(po::options_description& desc) {
  desc.add_options()
      ("cfg", po::value<std::vector<std::string>>()->composing(),
       "a SimGrid option for the engine, NAME:VALUE (repeatable), e.g. network/model:CM02");
}

bool take_simgrid_options(const po::variables_map& vm, Scenario& scenario) {
  // One list, in the order SimGrid applies them (a later value of an option wins): the
  // environment's, the scenario's, the flags'.
  std::vector<std::string> all = simgrid_options_from_env();
  const std::size_t from_env = all.size();
  all.insert(all.end(), scenario.simulation.cfg.begin(), scenario.simulation.cfg.end());
  const std::size_t from_scenario = all.size();
  if (vm.count("cfg"))
    for (const auto& option : vm["cfg"].as<std::vector<std::string>>()) all.push_back(option);
  bool ok = true;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const std::string why = simgrid_option_refusal(all[i]);
    if (why.empty()) continue;
    ok = false;
    if (i < from_env)
      std::cerr << error_prefix() << "PSTWIN_SIMGRID_CFG: " << all[i] << ": " << why << "\n";
    else if (i < from_scenario)
      std::cerr << error_prefix() << "invalid scenario " << vm["scenario"].as<std::string>() << ": /simulation/cfg/"
                << (i - from_env) << ": " << why
                << override_note(overrides_of(vm.count("set") ? vm["set"].as<std::vector<std::string>>()
                                                              : std::vector<std::string>()),
                                 "/simulation/cfg/" + std::to_string(i - from_env))
                << "\n";
    else
      std::cerr << error_prefix() << "--cfg=" << all[i] << ": " << why << "\n";
  }
  // Every variant's run gets the variable's and the flags' around its own list.
  for (Scenario& run : scenario.variant_scenarios) {
    std::vector<std::string> own = std::move(run.simulation.cfg);
    run.simulation.cfg.assign(all.begin(), all.begin() + static_cast<long>(from_env));
    run.simulation.cfg.insert(run.simulation.cfg.end(), own.begin(), own.end());
    run.simulation.cfg.insert(run.simulation.cfg.end(), all.begin() + static_cast<long>(from_scenario), all.end());
  }
  scenario.simulation.cfg = std::move(all);
  return ok;
}

}  // namespace pstwin::cli
