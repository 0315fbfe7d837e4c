// write_file_atomically: a reader sees the old file or all of the new one, and a failed write
// says which file and why while leaving the old one as it was.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "runtime/output/atomic_file.h"
#include "tests/scratch_dir.h"

namespace pstwin {
namespace {

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(AtomicFile, ReplacesTheWholeFileAndLeavesNoTemporary) {
  testing_support::ScratchDir dir("atomic");
  const std::string path = dir.file("summary.json");
  write_file_atomically(path, "{\"old\": true}\n");
  const std::string big(1 << 20, 'x');  // larger than any stdio buffer
  write_file_atomically(path, big);
  EXPECT_EQ(contents(path), big);
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 1u);
}

TEST(AtomicFile, AFailedWriteNamesTheFileAndKeepsTheOldOne) {
  testing_support::ScratchDir dir("atomic");
  // The target is a non-empty folder: the rename over it fails, after the temporary was written.
  const std::string path = dir.file("taken");
  std::filesystem::create_directories(path + "/inside");
  try {
    write_file_atomically(path, "new");
    FAIL() << "wrote over a folder";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write " + path), std::string::npos) << e.what();
  }
  EXPECT_TRUE(std::filesystem::is_directory(path + "/inside"));
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 1u);  // no temporary left behind

  EXPECT_THROW(write_file_atomically(dir.file("no-such-folder/summary.json"), "x"), std::runtime_error);
}

// A rename over /dev/null (a calibrate --out /dev/null as root) made it a regular file for the
// whole machine. What is not a regular file is written into, never replaced: shown on a FIFO,
// whose reader gets the text. A symbolic link is replaced, never followed: a link planted in an
// output folder must not make a run write into its target.
TEST(AtomicFile, AFifoIsWrittenIntoAndALinkReplacedNotFollowed) {
  testing_support::ScratchDir dir("atomic");
  const std::string fifo = dir.file("endpoint");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);  // lets the writer open at once
  ASSERT_GE(reader, 0);
  write_file_atomically(fifo, "tcp://127.0.0.1:5555\n");
  char got[64] = {};
  const ssize_t n = ::read(reader, got, sizeof got - 1);
  ::close(reader);
  EXPECT_EQ(std::string(got, n > 0 ? static_cast<std::size_t>(n) : 0), "tcp://127.0.0.1:5555\n");
  EXPECT_TRUE(std::filesystem::is_fifo(fifo));

  const std::string target = dir.file("real.json");
  write_file_atomically(target, "old");
  std::filesystem::create_symlink(target, dir.file("link.json"));
  write_file_atomically(dir.file("link.json"), "new");
  EXPECT_FALSE(std::filesystem::is_symlink(dir.file("link.json")));
  EXPECT_EQ(contents(dir.file("link.json")), "new");
  EXPECT_EQ(contents(target), "old");
}

}  // namespace
}  // namespace pstwin
