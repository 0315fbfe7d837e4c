// Checks on flag values as parse_args reads them, before Boost.Program_options converts them:
// what it would read wrongly (a negative number into an unsigned flag wraps around) and where a
// bad value came from (a PSTWIN_ variable, not the flag).
#pragma once

#include <string>

#include <boost/program_options.hpp>

namespace pstwin::cli {

/// The environment variable `prefix` + `name` reads from: "PSTWIN_CONNECT_TIMEOUT" for
/// ("PSTWIN_", "connect-timeout").
std::string variable_of(const std::string& prefix, const std::string& name);

/// Throws boost::program_options::error ("--port must not be negative (it counts from 0), got
/// -1") when an option of `parsed` whose type in `desc` is unsigned has a value written with a
/// minus sign: Boost reads "-1" into an unsigned as 4294967295 without a word. `env_prefix`
/// empty: `parsed` is the command line and the flag is named; else it came from the environment
/// and the variable (variable_of) is named.
void refuse_negative_unsigned(const boost::program_options::parsed_options& parsed,
                              const boost::program_options::options_description& desc,
                              const std::string& env_prefix = "");

/// Stores the options read from the environment (with `env_prefix`) into `vm` one at a time, so
/// that a value Boost refuses is reported naming its variable and value ("PSTWIN_STALL_TIMEOUT='abc'
/// is not a valid value for --stall-timeout") rather than the flag the user never wrote.
/// Throws boost::program_options::error.
void store_environment(const boost::program_options::parsed_options& parsed,
                       boost::program_options::variables_map& vm, const std::string& env_prefix);

}  // namespace pstwin::cli
