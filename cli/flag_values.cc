#include "cli/flag_values.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>
#include <optional>
#include <typeinfo>

namespace po = boost::program_options;

namespace pstwin::cli {

namespace {

/// The range of an integer type, by its magnitudes (a signed minimum as its absolute value).
struct IntegerRange {
  bool is_signed = false;
  std::uint64_t min_magnitude = 0;  ///< |minimum|
  std::uint64_t max = 0;
};

template <typename T>
IntegerRange range_of() {
  const auto min = std::numeric_limits<T>::min();
  return {std::numeric_limits<T>::is_signed, min < 0 ? static_cast<std::uint64_t>(-(min + 1)) + 1 : 0,
          static_cast<std::uint64_t>(std::numeric_limits<T>::max())};
}

/// The range of `t` when it is one of the integer types a flag may have.
std::optional<IntegerRange> integer_range(const std::type_info& t) {
  if (t == typeid(short)) return range_of<short>();
  if (t == typeid(int)) return range_of<int>();
  if (t == typeid(long)) return range_of<long>();
  if (t == typeid(long long)) return range_of<long long>();
  if (t == typeid(unsigned short)) return range_of<unsigned short>();
  if (t == typeid(unsigned int)) return range_of<unsigned int>();
  if (t == typeid(unsigned long)) return range_of<unsigned long>();
  if (t == typeid(unsigned long long)) return range_of<unsigned long long>();
  return std::nullopt;
}

/// A value written as an integer: its sign and magnitude, the magnitude saturated at 2^64 - 1
/// (`past_64_bits` says it was more).
struct WrittenInteger {
  bool negative = false;
  std::uint64_t magnitude = 0;
  bool past_64_bits = false;
};

/// `text` read as [spaces][+-]digits[spaces]; nothing when it is not written so.
std::optional<WrittenInteger> written_integer(const std::string& text) {
  std::size_t at = 0, end = text.size();
  while (at < end && std::isspace(static_cast<unsigned char>(text[at]))) ++at;
  while (end > at && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  WrittenInteger w;
  if (at < end && (text[at] == '-' || text[at] == '+')) w.negative = text[at++] == '-';
  if (at == end) return std::nullopt;
  for (; at < end; ++at) {
    const char c = text[at];
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (w.magnitude > (UINT64_MAX - digit) / 10) w.past_64_bits = true;
    else w.magnitude = w.magnitude * 10 + digit;
  }
  return w;
}

/// int_at_least's value: an int that knows its flag's lower bound.
class IntAtLeast : public po::typed_value<int> {
 public:
  explicit IntAtLeast(int min) : po::typed_value<int>(nullptr), min_(min) {}
  int min() const { return min_; }

 private:
  int min_;
};

std::string range_text(const IntegerRange& r) {
  return (r.is_signed && r.min_magnitude ? "-" + std::to_string(r.min_magnitude) : std::string("0")) + " to " +
         std::to_string(r.max);
}

}  // namespace

po::typed_value<int>* int_at_least(int min) { return new IntAtLeast(min); }

std::string variable_of(const std::string& prefix, const std::string& name) {
  std::string variable = prefix + name;
  std::transform(variable.begin(), variable.end(), variable.begin(),
                 [](unsigned char c) { return c == '-' ? '_' : static_cast<char>(std::toupper(c)); });
  return variable;
}

void check_integer_values(po::parsed_options& parsed, const po::options_description& desc,
                          const std::string& env_prefix) {
  for (po::option& option : parsed.options) {
    const po::option_description* d = desc.find_nothrow(option.string_key, false);
    if (d == nullptr) continue;
    const auto* typed = dynamic_cast<const po::typed_value_base*>(d->semantic().get());
    if (typed == nullptr) continue;
    auto range = integer_range(typed->value_type());
    if (!range) continue;
    // A flag's own lower bound (int_at_least) replaces its type's: the range it names is true.
    std::optional<std::uint64_t> floor;
    if (const auto* at_least = dynamic_cast<const IntAtLeast*>(typed)) {
      floor = static_cast<std::uint64_t>(at_least->min());
      *range = IntegerRange{false, 0, range->max};
    }
    const auto own_range = [&] { return std::to_string(floor.value_or(0)) + " to " + std::to_string(range->max); };
    const std::string name =
        env_prefix.empty() ? "--" + option.string_key : variable_of(env_prefix, option.string_key);
    for (std::string& value : option.value) {
      const auto w = written_integer(value);
      if (!w) continue;
      const bool zero = w->magnitude == 0 && !w->past_64_bits;
      if (zero) value = "0";  // "-0" is zero; Boost need not agree
      if (floor && ((w->negative && !zero) || (!w->past_64_bits && w->magnitude < *floor)))
        throw po::error(name + " is too small: " + value + " (it takes " + own_range() + ")");
      if (zero) continue;
      if (w->negative && !range->is_signed)
        throw po::error(name + " must not be negative (it counts from 0), got " + value);
      const std::uint64_t limit = w->negative ? range->min_magnitude : range->max;
      if (w->past_64_bits || w->magnitude > limit)
        throw po::error(name + " is too " + (w->negative ? "small" : "large") + ": " + value + " (it takes " +
                        (floor ? own_range() : range_text(*range)) + ")");
    }
  }
}

void store_environment(const po::parsed_options& parsed, po::variables_map& vm, const std::string& env_prefix,
                       std::set<std::string>* stored) {
  for (const po::option& option : parsed.options) {
    po::parsed_options one(parsed.description);
    one.options.push_back(option);
    try {
      // A value the command line gave stays (store keeps it, replacing only a default): only one
      // stored now came from here.
      if (stored != nullptr && (!vm.count(option.string_key) || vm[option.string_key].defaulted()))
        stored->insert(option.string_key);
      po::store(one, vm);
    } catch (const po::invalid_option_value&) {
      const std::string value = option.value.empty() ? "" : option.value.front();
      throw po::error(variable_of(env_prefix, option.string_key) + "='" + value + "' is not a valid value for --" +
                      option.string_key);
    } catch (const po::error& e) {
      throw po::error(variable_of(env_prefix, option.string_key) + ": " + e.what());
    }
  }
}

}  // namespace pstwin::cli
