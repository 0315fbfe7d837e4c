// cannot_write_file: try the write that will come later, on a file nobody reads.
#include "cli/output_probe.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "runtime/output/atomic_file.h"

namespace pstwin::cli {

std::string cannot_write_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (path.empty()) return "no file name given";
  if (fs::is_directory(path, ec)) return "is a folder";
  // A symbolic link is replaced by the write, whatever it points to (never followed).
  if (!fs::is_symlink(fs::symlink_status(path, ec)) && fs::exists(path, ec) && !fs::is_regular_file(path, ec))
    return "exists and is not a regular file (a device, FIFO or socket)";
  const fs::path folder = fs::path(path).parent_path();
  if (!folder.empty() && !fs::is_directory(folder, ec)) return "the folder " + folder.string() + " does not exist";
  // The name write_file_atomically will use: as the final write will, with O_EXCL so that a file of that name is never touched.
  const std::string probe = atomic_temporary_name(path, ::getpid());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return "cannot create a file in " + (folder.empty() ? std::string(".") : folder.string()) + ": " +
                     std::strerror(errno);
  const bool written = ::write(fd, "\n", 1) == 1;
  const int write_errno = errno;
  const bool closed = ::close(fd) == 0;
  const int close_errno = errno;
  ::unlink(probe.c_str());
  if (!written) return "cannot write a file in its folder: " + std::string(std::strerror(write_errno));
  if (!closed) return "cannot write a file in its folder: " + std::string(std::strerror(close_errno));
  return "";
}

}  // namespace pstwin::cli
