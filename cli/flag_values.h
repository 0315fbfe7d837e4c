// Checks on flag values as parse_args reads them, before Boost.Program_options converts them:
// what it would read wrongly (a negative number into an unsigned flag wraps around) and where a
// bad value came from (a PSTWIN_ variable, not the flag).
#pragma once

#include <set>
#include <string>

#include <boost/program_options.hpp>

namespace pstwin::cli {

/// The environment variable `prefix` + `name` reads from: "PSTWIN_CONNECT_TIMEOUT" for
/// ("PSTWIN_", "connect-timeout").
std::string variable_of(const std::string& prefix, const std::string& name);

/// The value of an int flag that takes `min` and up (REQUIRES min >= 0): po::value<int>() whose
/// lower bound check_integer_values knows, so that a value below it is refused as it is read,
/// and the range a message names is the flag's own ("--jobs is too small: 0 (it takes 1 to
/// 2147483647)", not int's from -2147483648).
boost::program_options::typed_value<int>* int_at_least(int min);

/// Checks every value of `parsed` whose option has an integer type in `desc` and is written as
/// an integer ([+-]digits, spaces around allowed) against that type's range, before Boost reads
/// it: Boost reads "-1" into an unsigned as 4294967295 without a word, and says only "invalid"
/// of a number past the range. Throws boost::program_options::error naming the flag: "--port
/// must not be negative (it counts from 0), got -1", "--seeds is too large: 5000000000 (it takes
/// 1 to 2147483647)" (an int_at_least flag's own range, else its type's), "--jobs is too small:
/// 0 (it takes 1 to 2147483647)". Zero written with a minus sign
/// ("-0") is zero, not negative: it is accepted, and rewritten "0" for Boost. Text that is not
/// an integer is left to Boost ("is not a valid value"). `env_prefix` empty: `parsed` is the
/// command line and the flag is named; else it came from the environment and the variable
/// (variable_of) is named.
void check_integer_values(boost::program_options::parsed_options& parsed,
                          const boost::program_options::options_description& desc,
                          const std::string& env_prefix = "");

/// Stores the options read from the environment (with `env_prefix`) into `vm` one at a time, so
/// that a value Boost refuses is reported naming its variable and value ("PSTWIN_STALL_TIMEOUT='abc'
/// is not a valid value for --stall-timeout") rather than the flag the user never wrote.
/// Throws boost::program_options::error. `stored`, when given, gets the names of the options
/// stored (those the command line had not given already).
void store_environment(const boost::program_options::parsed_options& parsed,
                       boost::program_options::variables_map& vm, const std::string& env_prefix,
                       std::set<std::string>* stored = nullptr);

}  // namespace pstwin::cli
