#include "cli/simgrid_cfg_option.h"

#include <iostream>
#include <vector>

#include "sim/simgrid_options.h"

namespace po = boost::program_options;

namespace pstwin::cli {

void add_simgrid_cfg_option(po::options_description& desc) {
  desc.add_options()
      ("cfg", po::value<std::vector<std::string>>()->composing(),
       "a SimGrid option for the engine, NAME:VALUE (repeatable), e.g. network/model:CM02");
}

bool take_simgrid_options(const po::variables_map& vm, Scenario& scenario) {
  const std::size_t from_scenario = scenario.simulation.cfg.size();
  if (vm.count("cfg"))
    for (const auto& option : vm["cfg"].as<std::vector<std::string>>())
      scenario.simulation.cfg.push_back(option);
  // Every variant's run gets them too, after its own list.
  if (vm.count("cfg"))
    for (Scenario& run : scenario.variant_scenarios)
      for (const auto& option : vm["cfg"].as<std::vector<std::string>>()) run.simulation.cfg.push_back(option);
  bool ok = true;
  for (std::size_t i = 0; i < scenario.simulation.cfg.size(); ++i) {
    const std::string& option = scenario.simulation.cfg[i];
    const std::string why = simgrid_option_refusal(option);
    if (why.empty()) continue;
    ok = false;
    if (i < from_scenario)
      std::cerr << "pstwin: invalid scenario " << vm["scenario"].as<std::string>()
                << ": /simulation/cfg/" << i << ": " << why << "\n";
    else
      std::cerr << "pstwin: --cfg=" << option << ": " << why << "\n";
  }
  return ok;
}

}  // namespace pstwin::cli
