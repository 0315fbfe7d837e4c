// write_file_atomically: a reader sees the old file or all of the new one, and a failed write
// says which file and why while leaving the old one as it was.
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

}  // namespace
}  // namespace pstwin
