// How a child process ended, kept as waitpid told it: an exit code or a signal, never one
// number standing for both (an exit code of 255, ssh's own failure, is not "signal 127").
#pragma once

#include <string>

namespace pstwin::cli {

/// How a child ended: it exited with `code` (0..255), or `signal` killed it (then code is 0).
struct ChildExit {
  int code = 0;    ///< exit code, when it exited
  int signal = 0;  ///< the signal that ended it; 0 when it exited

  /// From a waitpid() status. A status that is neither an exit nor a signal (a stopped child,
  /// never asked for here) reads as exit code 1.
  static ChildExit of(int wait_status);
  /// Ended well: exited with code 0.
  bool ok() const { return signal == 0 && code == 0; }
  /// The status a shell would report, to pass on as this process's own exit status: the exit
  /// code, or 128 + the signal.
  int shell_status() const { return signal != 0 ? 128 + signal : code; }
  /// "exited with status 255" or "was killed by signal 9 (SIGKILL)".
  std::string text() const;
};

}  // namespace pstwin::cli
