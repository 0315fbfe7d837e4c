// Counts in messages a user reads: "1 server", "3 servers", never "1 servers".
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

namespace pstwin {

/// `n` and the noun that agrees with it: `singular` when n is 1, else `plural` ("1 server",
/// "0 servers", "3 servers"). `plural` empty: `singular` + "s"; give it for the nouns that do not
/// take an "s" ("1 entry", "2 entries"). Throws nothing but std::bad_alloc.
inline std::string count_text(std::uint64_t n, const std::string& singular, const std::string& plural = "") {
  return std::to_string(n) + " " + (n == 1 ? singular : (plural.empty() ? singular + "s" : plural));
}

/// A count held in a double (to report one too large for an integer) written as the whole number
/// it is: "1099644796930", not std::to_string's "1099644796930.000000"; rounded to the nearest
/// whole number, every digit of it (a double above 2^53 prints the integer it holds). Non-finite
/// values print as "inf" or "nan".
inline std::string whole_number_text(double n) {
  if (!std::isfinite(n)) return std::isnan(n) ? "nan" : "inf";
  char text[400];  // DBL_MAX has 309 digits
  std::snprintf(text, sizeof text, "%.0f", std::nearbyint(n));
  return text;
}

/// "each of 3 servers", and "the 1 server" when n is 1 ("each of 1 server" reads as a slip).
/// Either takes its verb in the singular ("each of 3 servers gets", "the 1 server gets").
inline std::string each_of_text(std::uint64_t n, const std::string& singular, const std::string& plural = "") {
  return (n == 1 ? "the " : "each of ") + count_text(n, singular, plural);
}

}  // namespace pstwin
