#include "runtime/output/atomic_file.h"

#include "runtime/output/output_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace pstwin {

namespace {

/// Writes all of `text` to `fd` and closes it; false (errno set) when a step failed.
bool write_and_close(int fd, std::string_view text) {
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int why = errno;
      ::close(fd);
      errno = why;
      return false;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return ::close(fd) == 0;
}

/// Writes `text` into `path` in place: a device or FIFO has no old contents to keep whole.
void write_in_place(const std::string& path, std::string_view text) {
  const int fd = open_output_file(path, OutputOpen::kTruncate);
  if (!write_and_close(fd, text))
    throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
}

}  // namespace

void write_file_atomically(const std::string& given, std::string_view text) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const std::string& path = given;
  // A rename replaces the thing at `path` itself. A device (/dev/null, as root) or FIFO would
  // become a regular file, so it is written into; a symbolic link is replaced like a file,
  // never followed (DESIGN.md, "Outputs": no output is written through a link).
  const fs::file_status status = fs::symlink_status(path, ec);
  if (fs::exists(status) && !fs::is_regular_file(status) && !fs::is_directory(status) &&
      !fs::is_symlink(status))
    return write_in_place(path, text);
  const std::string tmp = atomic_temporary_name(path, ::getpid());
  auto fail = [&](const char* step) {
    const std::string reason = std::strerror(errno);
    std::remove(tmp.c_str());
    throw std::runtime_error("cannot write " + given + " (" + step + " " + tmp + "): " + reason);
  };
  // Exclusive and without following: a link planted at the temporary name is not written through.
  ::unlink(tmp.c_str());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) fail("creating");
  if (!write_and_close(fd, text)) fail("writing");
  if (std::rename(tmp.c_str(), path.c_str()) != 0) fail("renaming");
}

std::string atomic_temporary_name(const std::string& path, long pid) {
  return path + ".tmp." + std::to_string(pid);
}

}  // namespace pstwin
