#include "cli/child_exit.h"

#include <string.h>
#include <sys/wait.h>

namespace pstwin::cli {

ChildExit ChildExit::of(int wait_status) {
  if (WIFEXITED(wait_status)) return {WEXITSTATUS(wait_status), 0};
  if (WIFSIGNALED(wait_status)) return {0, WTERMSIG(wait_status)};
  return {1, 0};
}

std::string ChildExit::text() const {
  if (signal == 0) return "exited with status " + std::to_string(code);
  const char* name = sigabbrev_np(signal);  // null for a number no signal has
  return "was killed by signal " + std::to_string(signal) + (name ? std::string(" (SIG") + name + ")" : "");
}

}  // namespace pstwin::cli
