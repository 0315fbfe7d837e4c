#include "runtime/output/cut_outputs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "runtime/output/atomic_file.h"
#include "runtime/output/output_file.h"
#include "runtime/output/run_recorder.h"

namespace pstwin {

namespace {

/// Closes the descriptor however the function using it ends.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

[[noreturn]] void fail_cut(const std::string& path, const std::string& reason) {
  throw std::runtime_error("cannot cut " + path + " back to whole lines: " + reason);
}

}  // namespace

std::size_t keep_whole_lines(const std::string& path) {
  const Fd file{::open(path.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC)};
  if (file.fd < 0) {
    if (errno == ENOENT) return 0;
    fail_cut(path, std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(file.fd, &st) != 0) fail_cut(path, std::strerror(errno));
  if (!S_ISREG(st.st_mode)) fail_cut(path, "it is not a regular file");
  const off_t size = st.st_size;
  // Backwards, a block at a time: the cut part is at most one buffer of the writer's.
  char block[4096];
  off_t end = size;
  while (end > 0) {
    const off_t start = std::max<off_t>(0, end - static_cast<off_t>(sizeof block));
    const auto want = static_cast<std::size_t>(end - start);
    const ssize_t got = ::pread(file.fd, block, want, start);
    if (got < 0 && errno == EINTR) continue;
    if (got != static_cast<ssize_t>(want)) fail_cut(path, got < 0 ? std::strerror(errno) : "it shrank while read");
    const char* last = static_cast<const char*>(::memrchr(block, '\n', want));
    if (last) {
      end = start + (last - block) + 1;
      break;
    }
    end = start;
  }
  if (end == size) return 0;
  if (::ftruncate(file.fd, end) != 0) fail_cut(path, std::strerror(errno));
  return static_cast<std::size_t>(size - end);
}

void tidy_killed_run_folder(const std::string& dir, long writer_pid) {
  namespace fs = std::filesystem;
  const std::string metrics = dir + "/metrics.csv";
  keep_whole_lines(metrics);
  keep_whole_lines(dir + "/events.jsonl");
  std::error_code ec;
  if (fs::is_regular_file(fs::symlink_status(metrics, ec)) && fs::file_size(metrics, ec) == 0 && !ec) {
    OutputFileStream out(metrics, OutputOpen::kAppend);
    out << kMetricsCsvHeader << std::flush;
    if (!out) throw std::runtime_error("cannot write " + metrics + ": its header");
  }
  // Collected first: a folder is not changed while it is listed.
  const std::string suffix = atomic_temporary_name("", writer_pid);
  std::vector<fs::path> left;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      left.push_back(entry.path());
  }
  for (const fs::path& path : left)
    if (!fs::remove(path, ec) && ec)
      throw std::runtime_error("cannot remove " + path.string() + " (left by a killed write): " + ec.message());
}

}  // namespace pstwin
