// Switches (options that take no value: --quiet, --insecure, --rejoin, --join) read from PSTWIN_
// variables. A switch has no value for Boost to check, so the variable's text is read here:
// only an unmistakable on or off is taken, anything else refused naming the variable.
#pragma once

#include <optional>
#include <set>
#include <string>

#include <boost/program_options.hpp>

namespace pstwin::cli {

/// What a switch's variable says: true for "1", "true", "yes"; false for "0", "false", "no" or
/// empty; nullopt for anything else ("banana", "2", " yes"). Letters in any case ("True").
std::optional<bool> switch_value(const std::string& text);

/// For each switch of `desc` but --help, reads the variable `env_prefix` + NAME (variable_of in
/// cli/flag_values.h): on, it sets the switch in `vm` unless the command line gave it already
/// (as parse_args stores options from the environment: the command line wins); off or unset, it
/// leaves `vm` alone. Throws boost::program_options::error "PSTWIN_QUIET must be 1, true or yes
/// (on) or 0, false, no or empty (off), not 'banana'" for a value switch_value refuses, whether
/// or not the command line gave the switch.
/// `stored`, when given, gets the names of the switches it set.
void store_environment_switches(const boost::program_options::options_description& desc,
                                boost::program_options::variables_map& vm, const std::string& env_prefix,
                                std::set<std::string>* stored = nullptr);

}  // namespace pstwin::cli
