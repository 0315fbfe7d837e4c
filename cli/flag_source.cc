#include "cli/flag_source.h"

#include "cli/flag_values.h"

namespace pstwin::cli {

std::string flag_source(const std::set<std::string>& from_environment, const std::string& name,
                        const std::string& env_prefix) {
  return from_environment.count(name) ? variable_of(env_prefix, name) : "--" + name;
}

std::string from_variable(const std::string& source) {
  return source.rfind("--", 0) == 0 || source.empty() ? "" : " (from " + source + ")";
}

}  // namespace pstwin::cli
