// Command-line options shared by the subcommands that read a scenario.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "runtime/scenario/scenario.h"

namespace pstwin::cli {

/// Adds the positional SCENARIO.json and the repeatable --set option to `desc`/`pos`.
void add_scenario_options(boost::program_options::options_description& desc,
                          boost::program_options::positional_options_description& pos);

/// Parses `args` against `desc`; on a bad flag or --help prints to stderr/stdout and returns
/// nullopt with `exit_code` set (2 for errors, 0 for --help).
std::optional<boost::program_options::variables_map> parse_args(
    const std::vector<std::string>& args, const boost::program_options::options_description& desc,
    const boost::program_options::positional_options_description& pos, const std::string& usage,
    int& exit_code);

/// Loads the scenario named by the parsed options, printing a ScenarioError to stderr
/// ("pstwin: invalid scenario FILE: /pointer: message") and returning nullopt on bad input.
std::optional<Scenario> load_scenario_from(const boost::program_options::variables_map& vm);

}  // namespace pstwin::cli
