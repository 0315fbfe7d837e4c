#include "runtime/data/read_file.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "runtime/errors.h"

namespace pstwin {

namespace {

using File = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

File open_or_throw(const std::string& path) {
  File f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw DataError(path, 0, std::string("cannot open: ") + std::strerror(errno));
  return f;
}

void throw_if_error(std::FILE* f, const std::string& path) {
  if (std::ferror(f)) throw DataError(path, 0, std::string("cannot read: ") + std::strerror(errno));
}

}  // namespace

std::string read_file_head(const std::string& path, std::size_t max_bytes, bool& whole) {
  const File f = open_or_throw(path);
  std::string text(max_bytes + 1, '\0');  // one byte more says whether the file goes on
  std::size_t got = 0, n;
  while (got < text.size() && (n = std::fread(text.data() + got, 1, text.size() - got, f.get())) > 0) got += n;
  throw_if_error(f.get(), path);
  whole = got <= max_bytes;
  text.resize(std::min(got, max_bytes));
  return text;
}

std::uint64_t count_data_lines(const std::string& path, std::uint64_t offset, char comment, std::uint64_t stop_at) {
  const File f = open_or_throw(path);
  if (offset > 0 && std::fseek(f.get(), static_cast<long>(offset), SEEK_SET) != 0)
    throw DataError(path, 0, std::string("cannot read: ") + std::strerror(errno));
  std::uint64_t count = 0;
  bool at_start = true;  // no character other than a space yet on this line
  char chunk[1 << 16];
  std::size_t n;
  while (count < stop_at && (n = std::fread(chunk, 1, sizeof chunk, f.get())) > 0) {
    for (std::size_t i = 0; i < n && count < stop_at; ++i) {
      const char c = chunk[i];
      if (c == '\n') at_start = true;
      else if (at_start && c != ' ' && c != '\t' && c != '\r') {
        at_start = false;
        if (comment == '\0' || c != comment) ++count;
      }
    }
  }
  throw_if_error(f.get(), path);
  return count;
}

std::string read_whole_file(const std::string& path) {
  const File f = open_or_throw(path);
  // Chunked reads rather than trusting a size from stat.
  std::string text;
  char chunk[1 << 16];
  std::size_t n;
  while ((n = std::fread(chunk, 1, sizeof chunk, f.get())) > 0) text.append(chunk, n);
  throw_if_error(f.get(), path);
  return text;
}

}  // namespace pstwin
