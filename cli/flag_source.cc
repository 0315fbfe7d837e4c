#include "cli/flag_source.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace pstwin::cli {

std::string flag_source(const std::vector<std::string>& args, const std::string& name,
                        const std::string& env_prefix) {
  const std::string flag = "--" + name;
  for (const std::string& a : args)
    if (a == flag || a.rfind(flag + "=", 0) == 0) return flag;
  if (env_prefix.empty()) return flag;
  std::string variable = env_prefix + name;
  std::transform(variable.begin(), variable.end(), variable.begin(),
                 [](unsigned char c) { return c == '-' ? '_' : static_cast<char>(std::toupper(c)); });
  return std::getenv(variable.c_str()) ? variable : flag;
}

}  // namespace pstwin::cli
