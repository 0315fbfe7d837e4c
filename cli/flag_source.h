// Where a command's flag got its value: the command line, or a PSTWIN_ environment variable
// (pstwin node reads every option from either), so an error names what the user actually set.
#pragma once

#include <string>
#include <vector>

namespace pstwin::cli {

/// "--NAME" when `args` (the command's arguments) give flag NAME ("--NAME V" or "--NAME=V"), or
/// when `env_prefix` is empty or its variable is unset; else the variable, e.g.
/// "PSTWIN_METRICS_ADDRESS" for "metrics-address" (the command line wins over the environment,
/// as parse_args stores them).
std::string flag_source(const std::vector<std::string>& args, const std::string& name,
                        const std::string& env_prefix);

}  // namespace pstwin::cli
