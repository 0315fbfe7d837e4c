// Reading the JSON bodies of messages off the wire (membership, registrations, address books,
// shard states, traffic reports). A peer may send any JSON at all, so every number is checked
// against the type it will be stored in before it is converted: nlohmann's get<T>() converts a
// float or an out-of-range integer silently (1.5 -> 1, -1 -> 4294967295) or with undefined
// behaviour (1e30 -> uint32_t). Every failure is a ProtocolError naming the message and field.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/errors.h"

namespace pstwin::wire_json {

using json = nlohmann::json;

/// Deepest nesting of objects and arrays a message body may have.
inline constexpr std::size_t kMaxBodyDepth = 128;  // a registration carries a scenario (<= 64) inside

/// Parses a message body. `what` names the message ("membership from node 3"). Throws
/// ProtocolError("<what>: body is not JSON") on a syntax error, and when the body is not an
/// object (every body on the wire is one) or nests deeper than kMaxBodyDepth.
json parse_object(std::string_view body, const std::string& what);

/// The member `key` of object `j`. Throws ProtocolError("<what>: no \"key\"") when it is missing.
const json& member(const json& j, const char* key, const std::string& what);

/// `v` as an integer of type T, exactly: a float (even 2.0), a string, or an integer outside
/// [numeric_limits<T>::min(), numeric_limits<T>::max()] throws ProtocolError naming `field`.
template <class T>
T integer(const json& v, const std::string& field, const std::string& what) {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>);
  auto bad = [&](const std::string& why) {
    return ProtocolError(what + ": \"" + field + "\" " + why + ", got " + v.dump());
  };
  const std::string range = "an integer in [" + std::to_string(std::numeric_limits<T>::min()) + ", " +
                            std::to_string(std::numeric_limits<T>::max()) + "]";
  if (!v.is_number_integer()) throw bad("must be " + range);
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) throw bad("must be " + range);
    return static_cast<T>(u);
  }
  const auto s = v.get<std::int64_t>();
  if constexpr (std::is_unsigned_v<T>) {
    if (s < 0) throw bad("must be " + range);
    if (static_cast<std::uint64_t>(s) > static_cast<std::uint64_t>(std::numeric_limits<T>::max()))
      throw bad("must be " + range);
  } else {
    if (s < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
        s > static_cast<std::int64_t>(std::numeric_limits<T>::max()))
      throw bad("must be " + range);
  }
  return static_cast<T>(s);
}

/// integer<T> of member `key`.
template <class T>
T integer_member(const json& j, const char* key, const std::string& what) {
  return integer<T>(member(j, key, what), key, what);
}

/// Member `key` as an array of integers of type T, each checked as integer<T> (the field is
/// named "key/i" in errors).
template <class T>
std::vector<T> integer_list(const json& j, const char* key, const std::string& what) {
  const json& a = member(j, key, what);
  if (!a.is_array()) throw ProtocolError(what + ": \"" + key + "\" must be an array, got " + a.dump());
  std::vector<T> out;
  out.reserve(a.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    out.push_back(integer<T>(a[i], std::string(key) + "/" + std::to_string(i), what));
  return out;
}

/// Member `key` as a string. Throws ProtocolError naming it when it is not one.
std::string string_member(const json& j, const char* key, const std::string& what);

/// Member `key` as a finite double. Throws ProtocolError naming it when it is not a number.
double number_member(const json& j, const char* key, const std::string& what);

}  // namespace pstwin::wire_json
