// pstwin's own version, for records that say which build wrote them (calibrate's file).
#pragma once

#include <string>

namespace pstwin::cli {

/// "0.9.0 (commit 1a2b3c4d5e6f)", as `pstwin --version` prints it on its first line.
std::string pstwin_version();

}  // namespace pstwin::cli
