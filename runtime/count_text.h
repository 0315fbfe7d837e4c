// Counts in messages a user reads: "1 server", "3 servers", never "1 servers".
#pragma once

#include <cstdint>
#include <string>

namespace pstwin {

/// `n` and the noun that agrees with it: `singular` when n is 1, else `plural` ("1 server",
/// "0 servers", "3 servers"). `plural` empty: `singular` + "s"; give it for the nouns that do not
/// take an "s" ("1 entry", "2 entries"). Throws nothing but std::bad_alloc.
inline std::string count_text(std::uint64_t n, const std::string& singular, const std::string& plural = "") {
  return std::to_string(n) + " " + (n == 1 ? singular : (plural.empty() ? singular + "s" : plural));
}

}  // namespace pstwin
