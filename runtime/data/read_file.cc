#include "runtime/data/read_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "runtime/errors.h"

namespace pstwin {

std::string read_whole_file(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw DataError(path, 0, std::string("cannot open: ") + std::strerror(errno));
  // Chunked reads rather than trusting a size from stat.
  std::string text;
  char chunk[1 << 16];
  std::size_t n;
  while ((n = std::fread(chunk, 1, sizeof chunk, f.get())) > 0) text.append(chunk, n);
  if (std::ferror(f.get())) throw DataError(path, 0, std::string("cannot read: ") + std::strerror(errno));
  return text;
}

}  // namespace pstwin
