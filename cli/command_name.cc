#include "cli/command_name.h"

namespace pstwin::cli {

namespace {
// One command per process: main sets it before anything reads it.
std::string& command_name() {
  static std::string name;
  return name;
}
}  // namespace

void set_command_name(const std::string& name) { command_name() = name; }

std::string error_prefix() {
  return command_name().empty() ? "pstwin: " : "pstwin " + command_name() + ": ";
}

}  // namespace pstwin::cli
