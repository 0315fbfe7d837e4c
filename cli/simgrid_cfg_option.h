// SimGrid's own options for the commands that simulate (README, "SimGrid options"): one list made
// of PSTWIN_SIMGRID_CFG, the scenario's simulation.cfg and --cfg NAME:VALUE, checked with SimGrid
// up front.
#pragma once

#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "runtime/scenario/scenario.h"

namespace pstwin::cli {

/// Adds the repeatable "--cfg NAME:VALUE" to `desc`.
void add_simgrid_cfg_option(boost::program_options::options_description& desc);

/// Makes scenario.simulation.cfg the one list of SimGrid options the engine gets, in the order
/// SimGrid applies them (a later value of an option wins): PSTWIN_SIMGRID_CFG's
/// (simgrid_options_from_env, sim/simgrid_options.h), the scenario's
/// own, then the --cfg values of `vm`; each of scenario.variant_scenarios gets the variable's
/// before its own list and the flags' after it. Asks SimGrid about each of the base's (simgrid_option_refusal, in a child
/// process; REQUIRES no SimGrid engine in this process). Prints every refusal to stderr, as
/// "pstwin: PSTWIN_SIMGRID_CFG: NAME:VALUE: <why>", "pstwin: invalid scenario FILE:
/// /simulation/cfg/<i>: <why>" or "pstwin: --cfg=NAME:VALUE: <why>", and returns false (exit
/// status 2) when there was one. Throws std::runtime_error when it cannot fork.
bool take_simgrid_options(const boost::program_options::variables_map& vm, Scenario& scenario);

}  // namespace pstwin::cli
