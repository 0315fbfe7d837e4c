#include "runtime/output/atomic_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace pstwin {

void write_file_atomically(const std::string& path, std::string_view text) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  auto fail = [&](const char* step) {
    const std::string reason = std::strerror(errno);
    std::remove(tmp.c_str());
    throw std::runtime_error("cannot write " + path + " (" + step + " " + tmp + "): " + reason);
  };
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) fail("creating");
  const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const bool flushed = std::fflush(f) == 0;
  if (std::fclose(f) != 0 || !written || !flushed) fail("writing");
  if (std::rename(tmp.c_str(), path.c_str()) != 0) fail("renaming");
}

}  // namespace pstwin
