#include "runtime/checkpoint/shard_checkpoint.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>

#include "runtime/byte_order.h"
#include "runtime/errors.h"
#include "runtime/count_text.h"

namespace pstwin {
namespace {

using namespace byte_order;

constexpr char kMagic[8] = {'P', 'S', 'T', 'W', 'C', 'K', 'P', 'T'};
constexpr std::size_t kCrcBytes = 4;

// The invariants shared by encode and decode; `what` prefixes the message.
void check_consistent(const std::string& what, std::uint64_t key_begin, std::uint64_t key_count,
                      std::uint32_t width, std::uint64_t n_params, std::uint64_t n_first,
                      std::uint64_t n_second) {
  auto fail = [&](const std::string& m) { throw CheckpointError(what + ": " + m); };
  if (width == 0) fail("width is 0 floats per key");
  if (key_count > std::numeric_limits<std::uint64_t>::max() - key_begin)
    fail("key range of " + count_text(key_count, "key") + " from " + std::to_string(key_begin) +
         " overflows 64-bit keys");
  if (n_params != 0 && (key_count != n_params / width || n_params % width != 0))
    fail(count_text(n_params, "param") + " for " + count_text(key_count, "key") + " of " +
         count_text(width, "float") + "; expected none or key_count * width");
  if (n_first != 0 && n_first != n_params)
    fail("optimizer state 'first' has " + count_text(n_first, "float") + " for " +
         count_text(n_params, "param") + "; expected none or one per param");
  if (n_second != 0 && n_second != n_params)
    fail("optimizer state 'second' has " + count_text(n_second, "float") + " for " +
         count_text(n_params, "param") + "; expected none or one per param");
  if (n_second != 0 && n_first == 0) fail("optimizer state has 'second' without 'first'");
}

// Reads fields in order from data[0..size), failing with the field's name when it is cut off.
class Reader {
 public:
  Reader(const std::uint8_t* data, std::size_t size) : p_(data), remain_(size) {}

  const std::uint8_t* bytes(std::size_t n, const char* field) {
    if (n > remain_)
      fail("truncated in " + std::string(field) + ": needs " + std::to_string(n) + " bytes, " +
           std::to_string(remain_) + " remain");
    const std::uint8_t* at = p_;
    p_ += n;
    remain_ -= n;
    return at;
  }
  std::uint32_t u32(const char* field) { return load_u32(bytes(4, field)); }
  std::uint64_t u64(const char* field) { return load_u64(bytes(8, field)); }

  // n floats, checked against the bytes present (by division, so n near 2^64 cannot overflow)
  // before the vector is allocated.
  std::vector<float> floats(std::uint64_t n, const char* field) {
    if (n > remain_ / sizeof(float))
      fail("truncated in " + std::string(field) + ": header says " + std::to_string(n) +
           " floats but " + std::to_string(remain_) + " bytes remain");
    std::vector<float> v(static_cast<std::size_t>(n));
    load_array(v.data(), bytes(v.size() * sizeof(float), field), v.size());
    return v;
  }
  std::size_t remain() const { return remain_; }

  [[noreturn]] static void fail(const std::string& what) {
    throw CheckpointError("decode checkpoint: " + what);
  }

 private:
  const std::uint8_t* p_;
  std::size_t remain_;
};

std::string errno_text() { return std::strerror(errno); }

}  // namespace

std::vector<std::uint8_t> encode_checkpoint(const ShardCheckpoint& c) {
  const std::vector<float>& first = c.optimizer.first;
  const std::vector<float>& second = c.optimizer.second;
  check_consistent("encode checkpoint of range " + std::to_string(c.range), c.key_begin,
                   c.key_count, c.width, c.params.size(), first.size(), second.size());
  // The three vectors are in memory, so their byte count fits in size_t.
  const std::size_t floats = c.params.size() + first.size() + second.size();
  std::vector<std::uint8_t> out(kCheckpointHeaderBytes + floats * sizeof(float) + kCrcBytes);
  std::uint8_t* p = out.data();
  std::memcpy(p, kMagic, 8);
  store_u32(p + 8, kCheckpointVersion);
  store_u32(p + 12, c.range);
  store_u64(p + 16, c.key_begin);
  store_u64(p + 24, c.key_count);
  store_u32(p + 32, c.width);
  store_u64(p + 36, static_cast<std::uint64_t>(c.clock));
  store_u64(p + 44, c.optimizer.steps);
  store_u64(p + 52, c.params.size());
  store_u64(p + 60, first.size());
  store_u64(p + 68, second.size());
  p += kCheckpointHeaderBytes;
  for (const std::vector<float>* v : {&c.params, &first, &second}) {
    store_array(p, v->data(), v->size());
    p += v->size() * sizeof(float);
  }
  store_u32(p, crc32_of(out.data(), out.size() - kCrcBytes));
  return out;
}

ShardCheckpoint decode_checkpoint(const std::uint8_t* data, std::size_t size) {
  Reader r(data, size);
  const std::uint8_t* magic = r.bytes(8, "magic");
  if (std::memcmp(magic, kMagic, 8) != 0)
    Reader::fail("bad magic (expected \"PSTWCKPT\"): not a pstwin checkpoint");
  const std::uint32_t version = r.u32("format version");
  if (version != kCheckpointVersion)
    Reader::fail("unsupported format version " + std::to_string(version) + " (this build reads " +
                 std::to_string(kCheckpointVersion) + ")");
  ShardCheckpoint c;
  c.range = r.u32("range");
  c.key_begin = r.u64("key_begin");
  c.key_count = r.u64("key_count");
  c.width = r.u32("width");
  c.clock = static_cast<std::int64_t>(r.u64("clock"));
  c.optimizer.steps = r.u64("optimizer steps");
  const std::uint64_t n_params = r.u64("params count");
  const std::uint64_t n_first = r.u64("optimizer first count");
  const std::uint64_t n_second = r.u64("optimizer second count");
  // Sizes first (allocating nothing), then the bytes, then the checksum.
  check_consistent("decode checkpoint of range " + std::to_string(c.range), c.key_begin,
                   c.key_count, c.width, n_params, n_first, n_second);
  c.params = r.floats(n_params, "params");
  c.optimizer.first = r.floats(n_first, "optimizer first");
  c.optimizer.second = r.floats(n_second, "optimizer second");
  const std::uint32_t stored_crc = r.u32("CRC-32");
  if (r.remain() != 0)
    Reader::fail(std::to_string(r.remain()) + " trailing bytes after the CRC-32");
  const std::uint32_t computed_crc = crc32_of(data, size - kCrcBytes);
  if (stored_crc != computed_crc)
    Reader::fail("CRC mismatch: the file says " + hex32(stored_crc) + ", its bytes give " +
                 hex32(computed_crc));
  return c;
}

void write_file_atomically(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  // Built with append: GCC 12 warns falsely (-Wrestrict) about chained operator+ here.
  std::string tmp_name(".");
  tmp_name.append(target.filename().string()).append(".tmp-XXXXXX");
  std::string tmp = (folder / tmp_name).string();
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0)
    throw CheckpointError("cannot create a temporary file for " + path + ": " + errno_text());
  auto fail = [&](const std::string& step) {
    const std::string text = errno_text();
    ::unlink(tmp.c_str());
    throw CheckpointError("cannot write " + path + " (" + step + "): " + text);
  };
  const std::uint8_t* p = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int saved = errno;
      ::close(fd);
      errno = saved;
      fail("write");
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    const int saved = errno;
    ::close(fd);
    errno = saved;
    fail("fsync");
  }
  if (::close(fd) != 0) fail("close");
  if (::rename(tmp.c_str(), path.c_str()) != 0) fail("rename");
  // Make the rename itself durable. Best effort: some file systems refuse fsync on a folder.
  const int dir_fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
}

std::vector<std::uint8_t> read_file(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw CheckpointError("cannot open " + path + ": " + errno_text());
  std::vector<std::uint8_t> bytes;
  std::uint8_t chunk[1 << 16];
  std::size_t n;
  while ((n = std::fread(chunk, 1, sizeof chunk, f.get())) > 0)
    bytes.insert(bytes.end(), chunk, chunk + n);
  if (std::ferror(f.get())) throw CheckpointError("cannot read " + path + ": " + errno_text());
  return bytes;
}

}  // namespace pstwin
