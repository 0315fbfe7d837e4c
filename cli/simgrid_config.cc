#include "cli/simgrid_config.h"

#include <cstdlib>
#include <exception>
#include <iostream>
#include <sstream>
#include <string>

#include <simgrid/s4u/Engine.hpp>
#include <xbt/log.h>

namespace pstwin::cli {

bool apply_simgrid_config_from_env() {
  const char* text = std::getenv("PSTWIN_SIMGRID_CFG");
  if (!text || !*text) return true;
  // SimGrid announces each change at INFO level; outputs stay as without the variable.
  xbt_log_control_set("xbt_cfg.thresh:warning");
  std::istringstream items(text);
  for (std::string item; items >> item;) {
    try {
      simgrid::s4u::Engine::set_config(item);
    } catch (const std::exception& e) {
      // SimGrid's message lists every key it knows after the first line: keep the first.
      const std::string why = e.what();
      std::cerr << "pstwin: PSTWIN_SIMGRID_CFG: " << why.substr(0, why.find('\n')) << "\n";
      return false;
    }
  }
  return true;
}

}  // namespace pstwin::cli
