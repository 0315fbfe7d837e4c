#include "cli/flag_values.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <typeinfo>

namespace po = boost::program_options;

namespace pstwin::cli {

namespace {

bool is_unsigned_type(const std::type_info& t) {
  return t == typeid(unsigned char) || t == typeid(unsigned short) || t == typeid(unsigned int) ||
         t == typeid(unsigned long) || t == typeid(unsigned long long);
}

/// Whether a flag's text is a negative number: a minus sign after any spaces.
bool written_negative(const std::string& text) {
  const auto first = std::find_if(text.begin(), text.end(), [](unsigned char c) { return !std::isspace(c); });
  return first != text.end() && *first == '-';
}

}  // namespace

std::string variable_of(const std::string& prefix, const std::string& name) {
  std::string variable = prefix + name;
  std::transform(variable.begin(), variable.end(), variable.begin(),
                 [](unsigned char c) { return c == '-' ? '_' : static_cast<char>(std::toupper(c)); });
  return variable;
}

void refuse_negative_unsigned(const po::parsed_options& parsed, const po::options_description& desc,
                              const std::string& env_prefix) {
  for (const po::option& option : parsed.options) {
    const po::option_description* d = desc.find_nothrow(option.string_key, false);
    if (d == nullptr) continue;
    const auto* typed = dynamic_cast<const po::typed_value_base*>(d->semantic().get());
    if (typed == nullptr || !is_unsigned_type(typed->value_type())) continue;
    for (const std::string& value : option.value)
      if (written_negative(value))
        throw po::error((env_prefix.empty() ? "--" + option.string_key : variable_of(env_prefix, option.string_key)) +
                        " must not be negative (it counts from 0), got " + value);
  }
}

void store_environment(const po::parsed_options& parsed, po::variables_map& vm, const std::string& env_prefix) {
  for (const po::option& option : parsed.options) {
    po::parsed_options one(parsed.description);
    one.options.push_back(option);
    try {
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
