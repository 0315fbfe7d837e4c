// Where a command's flag got its value: the command line, or a PSTWIN_ environment variable
// (pstwin node reads every option from either), so an error names what the user actually set.
#pragma once

#include <set>
#include <string>

namespace pstwin::cli {

/// The variable `env_prefix` + NAME ("PSTWIN_METRICS_ADDRESS" for "metrics-address") when option
/// `name` took its value from it (`from_environment`, as parse_args fills it: the command line
/// wins); else "--NAME".
std::string flag_source(const std::set<std::string>& from_environment, const std::string& name,
                        const std::string& env_prefix);

/// " (from PSTWIN_OUT)" when `source` (flag_source's) is a variable, "" when it is a flag: added
/// after a value in a message that does not name where it came from otherwise ("cannot create
/// output folder /proc/nope (from PSTWIN_OUT): ...").
std::string from_variable(const std::string& source);

}  // namespace pstwin::cli
