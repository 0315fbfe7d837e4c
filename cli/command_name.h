// The running command's name, for the error lines of helpers several commands share: every
// command names itself the same way, "pstwin simulate: invalid scenario ...", whichever helper
// found the fault (README.md, "Commands": exit status 2, bad input).
#pragma once

#include <string>

namespace pstwin::cli {

/// Sets the command being run ("simulate", "launch", ...). Called once by main before the
/// command runs; the processes it forks (simulate's variants) inherit it.
void set_command_name(const std::string& name);

/// "pstwin NAME: " for the command set_command_name named, "pstwin: " before any: how an error
/// line begins. Throws nothing.
std::string error_prefix();

}  // namespace pstwin::cli
