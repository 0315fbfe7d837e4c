#include "runtime/scenario/units.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

namespace pstwin {
namespace {

/// One accepted unit: its spelling and what one of it is worth in the base unit.
struct Unit {
  std::string name;
  double scale;
};

/// A family of units ("a bandwidth", "a duration", ...) for parsing and for error messages.
struct Quantity {
  std::string_view what;   ///< "a bandwidth"
  std::vector<Unit> units;  ///< matched case-sensitively
  std::string_view listed;  ///< the accepted units as the header documents them
  /// Maps a spelling to the one in `units` (e.g. "TFlops" -> "Tf"); identity when null.
  std::string (*canonical)(std::string_view unit) = nullptr;
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// Length of the longest prefix of `s` that is a plain decimal number: [+-]digits[.digits][e[+-]digits].
/// Written by hand rather than with strtod, which would also take "inf", "nan" and hex floats.
std::size_t number_prefix(std::string_view s) {
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  std::size_t digits = 0;
  while (i < s.size() && is_digit(s[i])) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_digit(s[i])) ++i, ++digits;
  }
  if (digits == 0) return 0;
  // An exponent only when digits follow: "5e" alone leaves "e" to be read as (part of) the unit.
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    std::size_t j = i + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
    if (j < s.size() && is_digit(s[j])) {
      while (j < s.size() && is_digit(s[j])) ++j;
      i = j;
    }
  }
  return i;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

[[noreturn]] void fail(const Quantity& q, const std::string& text, const std::string& why) {
  throw std::invalid_argument("cannot parse \"" + text + "\" as " + std::string(q.what) + ": " + why +
                              "; accepted units: " + std::string(q.listed));
}

double parse(const Quantity& q, const std::string& text) {
  std::string_view s = trim(text);
  const std::size_t n = number_prefix(s);
  if (n == 0) fail(q, text, "expected a number followed by a unit");
  std::string_view number = s.substr(0, n);
  const bool negative = number.front() == '-';
  if (number.front() == '+' || number.front() == '-') number.remove_prefix(1);  // from_chars takes no sign

  double value = 0.0;
  const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec == std::errc::result_out_of_range) fail(q, text, "the number is out of range");
  if (ec != std::errc() || end != number.data() + number.size()) fail(q, text, "malformed number");
  if (negative && value != 0.0) fail(q, text, "the value is negative");

  const std::string_view written = trim(s.substr(n));
  if (written.empty()) fail(q, text, "a unit is required");
  const std::string unit = q.canonical ? q.canonical(written) : std::string(written);
  for (const Unit& u : q.units) {
    if (u.name != unit) continue;
    const double result = value * u.scale;
    if (!std::isfinite(result)) fail(q, text, "the value is not finite");
    return result;
  }
  fail(q, text, "unknown unit \"" + std::string(written) + "\"");
}

/// Decimal and binary prefixes. "k" is accepted beside "K" because SI (and SimGrid) write it so.
constexpr std::pair<std::string_view, double> kDecimal[] = {
    {"", 1.0}, {"K", 1e3}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}};
constexpr std::pair<std::string_view, double> kBinary[] = {
    {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0}};

/// Every prefix (up to and including `max_prefix` in kDecimal order) joined to `suffix`.
void add_decimal(std::vector<Unit>& out, std::string_view suffix, double scale, std::string_view max_prefix) {
  for (const auto& [prefix, factor] : kDecimal) {
    out.push_back({std::string(prefix) + std::string(suffix), factor * scale});
    if (prefix == max_prefix) break;
  }
}
void add_binary(std::vector<Unit>& out, std::string_view suffix, double scale) {
  for (const auto& [prefix, factor] : kBinary) out.push_back({std::string(prefix) + std::string(suffix), factor * scale});
}

const Quantity& bandwidth() {
  static const Quantity q = [] {
    Quantity r{"a bandwidth", {}, "bps, Kbps, Mbps, Gbps, Tbps, Bps, KBps, MBps, GBps, TBps, KiBps, MiBps, GiBps, TiBps"};
    add_decimal(r.units, "bps", 1.0 / 8.0, "T");  // bits per second, to bytes
    add_decimal(r.units, "Bps", 1.0, "T");
    add_binary(r.units, "Bps", 1.0);
    return r;
  }();
  return q;
}

const Quantity& duration() {
  static const Quantity q{"a duration",
                          {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}, {"min", 60.0}, {"h", 3600.0}},
                          "ns, us, ms, s, min, h"};
  return q;
}

const Quantity& bytes() {
  static const Quantity q = [] {
    Quantity r{"a size", {}, "B, KB, MB, GB, TB, KiB, MiB, GiB, TiB"};
    add_decimal(r.units, "B", 1.0, "T");
    add_binary(r.units, "B", 1.0);
    return r;
  }();
  return q;
}

/// "flops" in any case ("TFlops", "GFLOPS") becomes SimGrid's "f"; the prefix keeps its case, so
/// "mflops" (milli) stays unknown rather than silently meaning mega.
std::string flops_canonical(std::string_view unit) {
  if (unit.size() < 5) return std::string(unit);
  std::string tail(unit.substr(unit.size() - 5));
  for (char& c : tail) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (tail != "flops") return std::string(unit);
  return std::string(unit.substr(0, unit.size() - 5)) + "f";
}

const Quantity& flops() {
  static const Quantity q = [] {
    Quantity r{"a compute rate", {},
               "flops, Kflops, Mflops, Gflops, Tflops, Pflops (\"flops\" in any case), f, Kf, Mf, Gf, Tf, Pf",
               flops_canonical};
    add_decimal(r.units, "f", 1.0, "P");
    return r;
  }();
  return q;
}

}  // namespace

double parse_bandwidth_Bps(const std::string& text) { return parse(bandwidth(), text); }
double parse_duration_s(const std::string& text) { return parse(duration(), text); }
double parse_bytes(const std::string& text) { return parse(bytes(), text); }
double parse_flops(const std::string& text) { return parse(flops(), text); }

}  // namespace pstwin
