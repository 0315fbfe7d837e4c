// Strict, typed reading of JSON values for scenario validation. Internal to runtime/scenario/.
// Every reader throws ScenarioError at the value's JSON pointer with "expected X, got Y".
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace pstwin::scenario_json {

using nlohmann::json;

/// `parent` + "/" + `key`, with "~" and "/" escaped as RFC 6901 requires.
std::string child_pointer(const std::string& parent, std::string_view key);

/// A number for messages: integers below 1e15 exactly ("3"), others as JSON writes them ("0.25").
std::string format_number(double x);

/// A short description of a value for "got ..." in messages: `string "8"`, `-1`, `an object`.
std::string describe(const json& v);

/// `v` as compact JSON text for a message, with bytes that are not UTF-8 (a user's pointer keys
/// may hold any) written as U+FFFD where json::dump() would throw.
std::string json_text(const json& v);

/// Whether `doc` has a value at `pointer`. Unlike json::contains, never throws json's exceptions: nlohmann throws
/// out_of_range for an array index past 2^64 ("/consistency/99999999999999999999999"), which a
/// user's --set or a variant's set can write; such a value is simply not there.
bool has_pointer(const json& doc, const json::json_pointer& pointer);

/// An unsigned integer in [min, max]. Integral floats (1e7) are accepted, as JSON writers emit
/// them, up to 2^53: beyond, a double no longer holds every integer, so the value read might not
/// be the one written (write it without a fraction or exponent).
std::uint64_t read_uint(const json& v, const std::string& ptr, std::uint64_t min = 0,
                        std::uint64_t max = std::numeric_limits<std::uint64_t>::max());

/// Bounds for read_number; each bound is inclusive unless marked open.
struct Range {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_open = false;
  bool max_open = false;
};

/// A finite number within `range`.
double read_number(const json& v, const std::string& ptr, Range range = {});

/// A number that is used as a float32 (by the kernels and the servers' optimizers): finite and
/// within `range` as read, and still so once rounded to float32, and not rounded to zero or to a
/// subnormal float32 when it is not zero. So 1e39 (infinite as a float32), a beta of
/// 0.9999999999 (1 as a float32, outside [0, 1)) and a learning rate of 1e-50 (0 as a float32)
/// are errors. Returns the value as read.
double read_float32(const json& v, const std::string& ptr, Range range = {});

/// A string; non-empty unless `allow_empty`.
std::string read_string(const json& v, const std::string& ptr, bool allow_empty = false);

/// A string that is one of `choices`.
std::string read_choice(const json& v, const std::string& ptr, std::initializer_list<std::string_view> choices);

/// A non-empty name usable as a folder: [A-Za-z0-9._-] and not only dots.
std::string read_name(const json& v, const std::string& ptr);

/// A string with a unit, converted by `parser` (one of units.h); the parser's message becomes
/// the error. `example` shows a valid spelling ("10Gbps"). With `positive`, zero is rejected.
double read_unit(const json& v, const std::string& ptr, double (*parser)(const std::string&),
                 std::string_view example, bool positive);

/// An array, non-empty unless `allow_empty`.
const json& read_array(const json& v, const std::string& ptr, bool allow_empty);

/// A JSON object under validation. The constructor checks the type and rejects any key not in
/// `allowed` (naming the key's pointer and listing the allowed keys), so callers only read.
class Object {
 public:
  Object(const json& v, std::string ptr, std::initializer_list<std::string_view> allowed)
      : Object(v, std::move(ptr), std::span<const std::string_view>(allowed.begin(), allowed.size())) {}
  Object(const json& v, std::string ptr, std::span<const std::string_view> allowed);

  bool has(std::string_view key) const { return v_.contains(key); }
  /// The pointer of `key` inside this object.
  std::string ptr(std::string_view key) const { return child_pointer(ptr_, key); }
  const std::string& ptr() const { return ptr_; }
  /// The value at `key`; throws "missing required key" at its pointer when absent.
  const json& at(std::string_view key) const;
  /// Throws `message` at `key`'s pointer when `key` is present (a key that the rest forbids).
  void forbid(std::string_view key, const std::string& message) const;

 private:
  const json& v_;
  std::string ptr_;
};

}  // namespace pstwin::scenario_json
