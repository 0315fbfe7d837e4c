// --cfg NAME:VALUE for the commands that simulate: SimGrid's own options (README, "SimGrid
// options"), added after the scenario's simulation.cfg list and checked with SimGrid up front.
#pragma once

#include <string>

#include <boost/program_options.hpp>

#include "runtime/scenario/scenario.h"

namespace pstwin::cli {

/// Adds the repeatable "--cfg NAME:VALUE" to `desc`.
void add_simgrid_cfg_option(boost::program_options::options_description& desc);

/// Appends the --cfg values of `vm` to scenario.simulation.cfg and to each variant's (after the scenario's own, so a
/// flag wins: SimGrid keeps an option's last value), then asks SimGrid about each option
/// (simgrid_option_refusal, in a child process; REQUIRES no SimGrid engine in this process).
/// Prints every refusal to stderr, as "pstwin: --cfg=NAME:VALUE: <why>" for a flag and
/// "pstwin: invalid scenario FILE: /simulation/cfg/<i>: <why>" for the scenario's list, and
/// returns false (exit status 2) when there was one. Throws std::runtime_error when it cannot fork.
bool take_simgrid_options(const boost::program_options::variables_map& vm, Scenario& scenario);

}  // namespace pstwin::cli
