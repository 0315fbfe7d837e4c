#include "cli/output_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace pstwin::cli {

std::optional<OutputLock> OutputLock::take(const std::string& dir, const std::string& command,
                                           std::string& error) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    error = "cannot create output folder " + dir + ": " + ec.message();
    return std::nullopt;
  }
  const std::string path = dir + "/.pstwin.lock";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    error = "cannot open " + path + ": " + std::strerror(errno);
    return std::nullopt;
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int why = errno;
    ::close(fd);
    if (why != EWOULDBLOCK) {
      error = "cannot lock " + path + ": " + std::strerror(why);
      return std::nullopt;
    }
    // The holder wrote "PID COMMAND" once it had the lock; a run that is just starting may not
    // have yet.
    std::ifstream in(path);
    std::string pid, holder;
    in >> pid >> holder;
    error = "output folder " + dir + " is in use by another run (" +
            (pid.empty() ? std::string("its pid not written yet") : "pid " + pid + ", pstwin " + holder) +
            "); wait for it to end, or give this run another --out";
    return std::nullopt;
  }
  std::ostringstream text;
  text << ::getpid() << ' ' << command << '\n';
  const std::string line = text.str();
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, line.data(), line.size(), 0) != static_cast<ssize_t>(line.size())) {
    error = "cannot write " + path + ": " + std::strerror(errno);
    ::close(fd);
    return std::nullopt;
  }
  return OutputLock(fd);
}

OutputLock::~OutputLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock; the file stays, harmless
}

}  // namespace pstwin::cli
