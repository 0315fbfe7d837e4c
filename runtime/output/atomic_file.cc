#include "runtime/output/atomic_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace pstwin {

namespace {

/// Writes `text` into `path` in place: a device or FIFO has no old contents to keep whole.
void write_in_place(const std::string& path, std::string_view text) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
  const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const bool flushed = std::fflush(f) == 0;
  const int why = errno;
  if (std::fclose(f) != 0 || !written || !flushed)
    throw std::runtime_error("cannot write " + path + ": " + std::strerror(why));
}

}  // namespace

void write_file_atomically(const std::string& given, std::string_view text) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::string path = given;
  // A rename would replace the thing at `path` itself: a device (/dev/null, as root), a FIFO
  // or a symbolic link would become a regular file. A device or FIFO is written into; a link
  // to a file has its target replaced, and stays a link.
  const fs::file_status status = fs::status(path, ec);
  if (fs::exists(status) && !fs::is_regular_file(status) && !fs::is_directory(status))
    return write_in_place(path, text);
  if (fs::is_symlink(fs::symlink_status(path, ec)) && fs::is_regular_file(status)) {
    const fs::path target = fs::canonical(path, ec);
    if (!ec) path = target.string();
  }
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  auto fail = [&](const char* step) {
    const std::string reason = std::strerror(errno);
    std::remove(tmp.c_str());
    throw std::runtime_error("cannot write " + given + " (" + step + " " + tmp + "): " + reason);
  };
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) fail("creating");
  const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const bool flushed = std::fflush(f) == 0;
  if (std::fclose(f) != 0 || !written || !flushed) fail("writing");
  if (std::rename(tmp.c_str(), path.c_str()) != 0) fail("renaming");
}

}  // namespace pstwin
