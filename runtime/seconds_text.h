// Durations in messages a user reads: "300 s" and "0.2 s", not std::to_string's "300.000000 s".
#pragma once

#include <sstream>
#include <string>

namespace pstwin {

/// `seconds` in the shortest form with at most 6 significant digits ("300", "0.2", "1.35024",
/// "1e-06"); the caller adds the unit.
inline std::string seconds_text(double seconds) {
  std::ostringstream out;
  out << seconds;
  return out.str();
}

}  // namespace pstwin
