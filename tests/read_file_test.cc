// Reading data files whole or in part (runtime/data/read_file.h).
#include "runtime/data/read_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "runtime/errors.h"

namespace pstwin {
namespace {

/// Writes `text` to a file of its own and returns the path.
std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "pstwin-read-file-" + std::to_string(::getpid()) + "-" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

TEST(ReadFile, HeadIsTheFirstBytesAndSaysWhetherThatIsAll) {
  const std::string path = write_file("head", "0123456789");
  bool whole = false;
  EXPECT_EQ(read_file_head(path, 4, whole), "0123");
  EXPECT_FALSE(whole);
  EXPECT_EQ(read_file_head(path, 10, whole), "0123456789");
  EXPECT_TRUE(whole);
  EXPECT_EQ(read_file_head(path, 100, whole), "0123456789");
  EXPECT_TRUE(whole);
  EXPECT_THROW(read_file_head(path + ".absent", 4, whole), DataError);
}

TEST(ReadFile, CountsDataLinesFromAnOffsetUpToALimit) {
  // Data lines: 1, 4 (after spaces), 6 (CRLF), 8 (no final newline). Blank: 2, 5, 7 ("\r").
  // Comment: 3.
  const std::string text = "1 1:1\n\n# c\n  -1 2:1\n \t\n+1\r\n\r\n1";
  const std::string path = write_file("count", text);
  EXPECT_EQ(count_data_lines(path, 0, '#', 100), 4u);
  EXPECT_EQ(count_data_lines(path, 0, '\0', 100), 5u);  // without comments "# c" is data
  EXPECT_EQ(count_data_lines(path, 0, '#', 2), 2u);     // stops once it has enough
  EXPECT_EQ(count_data_lines(path, text.find("# c"), '#', 100), 3u);
  EXPECT_EQ(count_data_lines(path, text.size(), '#', 100), 0u);
  EXPECT_THROW(count_data_lines(path + ".absent", 0, '#', 1), DataError);
}

}  // namespace
}  // namespace pstwin
