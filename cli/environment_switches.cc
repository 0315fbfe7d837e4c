#include "cli/environment_switches.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "cli/flag_values.h"

namespace po = boost::program_options;

namespace pstwin::cli {

std::optional<bool> switch_value(const std::string& text) {
  std::string lower = text;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower == "1" || lower == "true" || lower == "yes") return true;
  if (lower.empty() || lower == "0" || lower == "false" || lower == "no") return false;
  return std::nullopt;
}

void store_environment_switches(const po::options_description& desc, po::variables_map& vm,
                                const std::string& env_prefix, std::set<std::string>* stored) {
  for (const auto& option : desc.options()) {
    const std::string& name = option->long_name();
    if (name == "help" || option->semantic()->max_tokens() != 0) continue;
    const std::string variable = variable_of(env_prefix, name);
    const char* text = std::getenv(variable.c_str());
    if (text == nullptr) continue;
    const auto on = switch_value(text);
    if (!on)
      throw po::error(variable + " must be 1, true or yes (on) or 0, false, no or empty (off), not '" +
                      std::string(text) + "'");
    if (!*on) continue;
    // Stored as the command line's switch would be; store() leaves one the command line gave.
    // A bool_switch is in vm already (its default false): set by the command line only if true.
    const bool given = vm.count(name) && !vm[name].defaulted();
    if (stored != nullptr && !given) stored->insert(name);
    po::parsed_options one(&desc);
    one.options.push_back(po::option(name, {}));
    po::store(one, vm);
  }
}

}  // namespace pstwin::cli
