#include "runtime/output/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace pstwin {

namespace {

/// A write-only buffer over a descriptor it owns; write(2) errors make sync/overflow fail.
class FdBuf : public std::streambuf {
 public:
  explicit FdBuf(int fd) : fd_(fd) { setp(buf_, buf_ + sizeof buf_); }
  ~FdBuf() override {
    flush_all();
    ::close(fd_);
  }

 protected:
  int_type overflow(int_type c) override {
    if (!flush_all()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override { return flush_all() ? 0 : -1; }

 private:
  bool flush_all() {
    const char* p = pbase();
    while (p < pptr()) {
      const ssize_t n = ::write(fd_, p, static_cast<std::size_t>(pptr() - p));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      p += n;
    }
    setp(buf_, buf_ + sizeof buf_);
    return true;
  }

  int fd_;
  char buf_[1 << 14];
};

}  // namespace

int open_output_file(const std::string& path, OutputOpen how, const std::string& kind) {
  const std::string what = "cannot write " + (kind.empty() ? "" : kind + " ") + path + ": ";
  int flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC;
  mode_t mode = 0644;
  switch (how) {
    case OutputOpen::kTruncate: flags |= O_TRUNC; break;
    case OutputOpen::kAppend: flags |= O_APPEND; break;
    case OutputOpen::kPrivate:
      // unlink(2) removes a link itself; O_EXCL then refuses anything planted meanwhile.
      if (::unlink(path.c_str()) != 0 && errno != ENOENT)
        throw std::runtime_error(what + "cannot remove it: " + std::strerror(errno));
      flags |= O_EXCL;
      mode = 0600;
      break;
  }
  const int fd = ::open(path.c_str(), flags, mode);
  if (fd >= 0) return fd;
  const int why = errno;
  struct stat st {};
  if (why == ELOOP && ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
    throw std::runtime_error(what +
                             "it is a symbolic link; pstwin does not write through links, "
                             "remove it");
  throw std::runtime_error(what + std::strerror(why));
}

OutputFileStream::OutputFileStream(const std::string& path, OutputOpen how, const std::string& kind)
    : std::ostream(nullptr), buf_(std::make_unique<FdBuf>(open_output_file(path, how, kind))) {
  rdbuf(buf_.get());
}

OutputFileStream::~OutputFileStream() {
  rdbuf(nullptr);
  buf_.reset();
}

}  // namespace pstwin
