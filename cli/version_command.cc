// `pstwin --version`: what a bug report needs to say which pstwin ran, and on what.
#include <iostream>
#include <string>

#include <xbt/base.h>  // simgrid/version.h needs its declaration macros
#include <simgrid/version.h>
#include <zmq.h>

#include "cli/commands.h"
#include "cli/version_text.h"

// Set by cli/CMakeLists.txt at configure time: the project version, the git commit ("unknown"
// outside a git checkout) and the CUDA compiler's version (empty when the build has no CUDA).
#ifndef PSTWIN_VERSION
#define PSTWIN_VERSION "unknown"
#endif
#ifndef PSTWIN_GIT_COMMIT
#define PSTWIN_GIT_COMMIT "unknown"
#endif
#ifndef PSTWIN_CUDA_VERSION
#define PSTWIN_CUDA_VERSION ""
#endif

namespace pstwin::cli {

std::string pstwin_version() { return std::string(PSTWIN_VERSION) + " (commit " + PSTWIN_GIT_COMMIT + ")"; }

int version_command() {
  // The libraries' own versions, as loaded at run time (a shared library may be newer than the
  // headers the build saw).
  int major = 0, minor = 0, patch = 0;
  sg_version_get(&major, &minor, &patch);
  std::cout << "pstwin " << pstwin_version() << "\n"
            << "SimGrid " << major << '.' << minor << '.' << patch << "\n";
  zmq_version(&major, &minor, &patch);
  std::cout << "ZeroMQ " << major << '.' << minor << '.' << patch << "\n";
  const std::string cuda = PSTWIN_CUDA_VERSION;
  std::cout << "CUDA " << (cuda.empty() ? "not built" : cuda) << "\n";
  return 0;
}

}  // namespace pstwin::cli
