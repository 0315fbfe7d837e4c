#include "runtime/scenario/json_fields.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "runtime/edit_distance.h"
#include "runtime/errors.h"

namespace pstwin::scenario_json {
namespace {

/// 2^53: every integer up to it is a double, not every one above.
constexpr double kMaxExactInteger = 9007199254740992.0;

/// A float32 as the shortest text that reads back as it: 1, 0.99999994, 1.1754944e-38.
std::string format_float(float f) {
  char buf[32];
  for (int digits = 1; digits <= 9; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, static_cast<double>(f));
    if (std::strtof(buf, nullptr) == f) break;
  }
  return buf;
}

std::string describe_range(const Range& r) {
  const bool has_min = std::isfinite(r.min), has_max = std::isfinite(r.max);
  if (has_min && has_max)
    return "a number in " + std::string(r.min_open ? "(" : "[") + format_number(r.min) + ", " +
           format_number(r.max) + (r.max_open ? ")" : "]");
  if (has_min) return std::string("a number ") + (r.min_open ? "> " : ">= ") + format_number(r.min);
  if (has_max) return std::string("a number ") + (r.max_open ? "< " : "<= ") + format_number(r.max);
  return "a number";
}

std::string join_quoted(std::initializer_list<std::string_view> items) {
  std::string out;
  for (std::string_view s : items) {
    if (!out.empty()) out += ", ";
    out += "\"" + std::string(s) + "\"";
  }
  return out;
}

// An integral double as its digits, up to 1e21 (beyond, its exponent form is the clearer).
std::string integer_text(double d) {
  if (!(std::fabs(d) < 1e21)) return json(d).dump();
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", d);
  return buf;
}

}  // namespace

std::string format_number(double x) {
  if (std::floor(x) == x && std::fabs(x) < 1e15) return std::to_string(static_cast<long long>(x));
  return json(x).dump();
}

std::string child_pointer(const std::string& parent, std::string_view key) {
  std::string out = parent + "/";
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

std::string json_text(const json& v) { return v.dump(-1, ' ', false, json::error_handler_t::replace); }

std::string describe(const json& v) {
  switch (v.type()) {
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::null: return "null";
    case json::value_t::string: {
      std::string s = json_text(v);  // never throws on bad UTF-8
      // Keep messages readable when someone pastes a whole file into one field.
      if (s.size() > 60) s = s.substr(0, 56) + "...\"";
      return "string " + s;
    }
    default: return v.dump();  // numbers and booleans as written
  }
}

bool has_pointer(const json& doc, const json::json_pointer& pointer) {
  try {
    return doc.contains(pointer);
  } catch (const json::exception&) {
    return false;
  }
}

std::uint64_t read_uint(const json& v, const std::string& ptr, std::uint64_t min, std::uint64_t max) {
  std::string expected = min == 0   ? "a non-negative integer"
                         : min == 1 ? "a positive integer"
                                    : "an integer >= " + std::to_string(min);
  const auto fail = [&] { throw ScenarioError(ptr, "expected " + expected + ", got " + describe(v)); };

  std::uint64_t x = 0;
  if (v.is_number_unsigned()) {
    x = v.get<std::uint64_t>();
  } else if (v.is_number_integer()) {
    if (v.get<std::int64_t>() < 0) fail();
    x = static_cast<std::uint64_t>(v.get<std::int64_t>());
  } else if (v.is_number_float()) {
    const double d = v.get<double>();
    if (!(d >= 0.0) || d != std::floor(d)) fail();
    // An integer written beyond 2^64 - 1 is read as a float too: too large, however written.
    // Echoed as an integer, as it was most likely written (2^64, not 1.8446744073709552e+19).
    if (d >= 18446744073709551616.0 || d > static_cast<double>(max))
      throw ScenarioError(ptr, "expected " + expected + " <= " + std::to_string(max) + ", got " +
                                   integer_text(d) + ": too large");
    // Above 2^53 a double skips integers: "9007199254740993.0" reads as ...992.
    if (d > kMaxExactInteger)
      throw ScenarioError(ptr, "expected " + expected + " written without a fraction or exponent: " + describe(v) +
                                   " is beyond 2^53, where a floating-point number no longer holds every integer");
    x = static_cast<std::uint64_t>(d);
  } else {
    fail();
  }
  if (x < min) fail();
  if (x > max) {
    expected += " <= " + std::to_string(max);  // only worth saying when it is the problem
    fail();
  }
  return x;
}

double read_number(const json& v, const std::string& ptr, Range r) {
  const auto fail = [&] { throw ScenarioError(ptr, "expected " + describe_range(r) + ", got " + describe(v)); };
  if (!v.is_number()) fail();
  const double x = v.get<double>();
  if (!std::isfinite(x)) fail();
  if (r.min_open ? !(x > r.min) : !(x >= r.min)) fail();
  if (r.max_open ? !(x < r.max) : !(x <= r.max)) fail();
  return x;
}

double read_float32(const json& v, const std::string& ptr, Range r) {
  const double x = read_number(v, ptr, r);
  const float f = static_cast<float>(x);
  const auto fail = [&](const std::string& why) {
    throw ScenarioError(ptr, describe(v) + " " + why + " as a float32, the type it is used in; expected " +
                                 describe_range(r) + " that a float32 holds");
  };
  if (!std::isfinite(f)) fail("is infinite");
  if (x != 0.0 && !std::isnormal(f))
    fail(f == 0.0f ? std::string("becomes 0") : "becomes the subnormal " + format_float(f));
  if (r.min_open ? !(f > r.min) : !(f >= r.min)) fail("becomes " + format_float(f));
  if (r.max_open ? !(f < r.max) : !(f <= r.max)) fail("becomes " + format_float(f));
  return x;
}

std::string read_string(const json& v, const std::string& ptr, bool allow_empty) {
  const char* expected = allow_empty ? "expected a string, got " : "expected a non-empty string, got ";
  if (!v.is_string()) throw ScenarioError(ptr, expected + describe(v));
  std::string s = v.get<std::string>();
  if (s.empty() && !allow_empty) throw ScenarioError(ptr, expected + describe(v));
  return s;
}

std::string read_choice(const json& v, const std::string& ptr, std::initializer_list<std::string_view> choices) {
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    for (std::string_view c : choices)
      if (s == c) return s;
  }
  throw ScenarioError(ptr, "expected one of " + join_quoted(choices) + ", got " + describe(v));
}

std::string read_name(const json& v, const std::string& ptr) {
  const auto fail = [&] {
    throw ScenarioError(ptr, "expected a name of letters, digits, '.', '_' or '-' (used as a folder name), got " +
                                 describe(v));
  };
  if (!v.is_string()) fail();
  const std::string s = v.get<std::string>();
  bool only_dots = true;
  for (char c : s) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    if (!ok) fail();
    only_dots = only_dots && c == '.';
  }
  if (s.empty() || only_dots) fail();  // "", ".", ".." would escape or alias the output folder
  return s;
}

double read_unit(const json& v, const std::string& ptr, double (*parser)(const std::string&),
                 std::string_view example, bool positive) {
  if (!v.is_string())
    throw ScenarioError(ptr, "expected a string with a unit such as \"" + std::string(example) + "\", got " +
                                 describe(v));
  double x = 0.0;
  try {
    x = parser(v.get<std::string>());
  } catch (const std::invalid_argument& e) {
    throw ScenarioError(ptr, e.what());
  }
  if (positive && x <= 0.0) throw ScenarioError(ptr, "expected a value > 0, got " + describe(v));
  return x;
}

const json& read_array(const json& v, const std::string& ptr, bool allow_empty) {
  if (!v.is_array() || (!allow_empty && v.empty()))
    throw ScenarioError(ptr, std::string(allow_empty ? "expected an array" : "expected a non-empty array") +
                                 ", got " + (v.is_array() ? std::string("an empty array") : describe(v)));
  return v;
}

Object::Object(const json& v, std::string ptr, std::span<const std::string_view> allowed)
    : v_(v), ptr_(std::move(ptr)) {
  if (!v.is_object()) throw ScenarioError(ptr_, "expected an object, got " + describe(v));
  for (const auto& [key, value] : v.items()) {
    bool known = false;
    for (std::string_view a : allowed) known = known || key == a;
    if (known) continue;
    std::string list;
    for (std::string_view a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    throw ScenarioError(child_pointer(ptr_, key),
                        "unknown key \"" + key + "\"" + did_you_mean(key, allowed) + "; allowed keys: " + list);
  }
}

const json& Object::at(std::string_view key) const {
  const auto it = v_.find(key);
  if (it == v_.end()) throw ScenarioError(ptr(key), "missing required key \"" + std::string(key) + "\"");
  return *it;
}

void Object::forbid(std::string_view key, const std::string& message) const {
  if (has(key)) throw ScenarioError(ptr(key), message);
}

}  // namespace pstwin::scenario_json
