// Parsing JSON text a user wrote (scenario files, --set values) strictly: what nlohmann::json
// accepts silently (a key given twice) or throws without saying where (a number too large for
// a double) becomes a ScenarioError at the value's JSON pointer.
#pragma once

#include <cstddef>
#include <cstdint>

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace pstwin {

/// Deepest nesting of objects and arrays a scenario document may have.
inline constexpr std::size_t kMaxJsonDepth = 64;

/// Parses `text` as one JSON document. `base_pointer` is prepended to every pointer in errors:
/// the place the document goes ("" for a whole file, "/training" for a --set value there).
/// Throws:
/// - ScenarioError at the pointer of the second occurrence for a key given twice in one object
///   (nlohmann would keep the last value silently), e.g. "/cluster/workers: key "workers" is
///   given twice in /cluster";
/// - ScenarioError at the number's pointer for a number outside the range of a double (1e400,
///   -1e400; nlohmann throws out_of_range 406 without a location);
/// - ScenarioError at the pointer where objects and arrays nest deeper than kMaxJsonDepth;
/// - nlohmann::json::parse_error for text that is not JSON (its message has line and column):
///   callers decide whether that is an error (a file) or not (a --set value taken as a string).
nlohmann::json parse_strict_json(std::string_view text, const std::string& base_pointer = "");

/// Largest JSON file a scenario reads (the scenario itself, a cluster include): far above any
/// real one, and a bound so that /dev/zero or a huge file is an error, not memory exhausted.
inline constexpr std::uintmax_t kMaxScenarioFileBytes = 64ull << 20;

/// The text of JSON file `path`, which `what` names in errors (e.g. "scenario file", "the
/// included file \"cal.json\""). Throws ScenarioError at `pointer` when it is missing or
/// unreadable (with the OS's reason), a folder, not a regular file (a device or FIFO, which could
/// block or never end), or over kMaxScenarioFileBytes.
std::string read_json_file_text(const std::string& path, const std::string& what, const std::string& pointer);

}  // namespace pstwin
