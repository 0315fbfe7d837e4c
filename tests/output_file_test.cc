// open_output_file: no output file is ever written through a symbolic link planted where it goes
// (a link at OUT/bsp/job.key made launch write the job's secret key into the link's target).
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "runtime/output/output_file.h"
#include "tests/scratch_dir.h"

namespace pstwin {
namespace {

namespace fs = std::filesystem;

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(OutputFile, WritesTruncatesAndAppends) {
  testing_support::ScratchDir dir("output_file");
  const std::string path = dir.file("events.jsonl");
  { OutputFileStream out(path, OutputOpen::kTruncate); out << "a\n"; }
  { OutputFileStream out(path, OutputOpen::kAppend); out << "b\n"; }
  EXPECT_EQ(contents(path), "a\nb\n");
  { OutputFileStream out(path, OutputOpen::kTruncate); out << "c\n"; }
  EXPECT_EQ(contents(path), "c\n");
}

TEST(OutputFile, AStreamedFileRefusesALinkNamingTheFile) {
  testing_support::ScratchDir dir("output_file");
  const std::string target = dir.file("victim");
  { std::ofstream(target) << "precious"; }
  const std::string link = dir.file("metrics.csv");
  fs::create_symlink(target, link);
  for (const OutputOpen how : {OutputOpen::kTruncate, OutputOpen::kAppend}) {
    try {
      OutputFileStream out(link, how);
      out << "written through";
      ADD_FAILURE() << "a link was opened";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(link + ": it is a symbolic link"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(contents(target), "precious");
  EXPECT_TRUE(fs::is_symlink(link));
}

TEST(OutputFile, APrivateFileReplacesALinkAndIsOwnerOnly) {
  testing_support::ScratchDir dir("output_file");
  const std::string target = dir.file("victim");
  { std::ofstream(target) << "precious"; }
  ::chmod(target.c_str(), 0644);
  const std::string key = dir.file("job.key");
  fs::create_symlink(target, key);
  { OutputFileStream out(key, OutputOpen::kPrivate); out << "secret\n"; }
  EXPECT_EQ(contents(target), "precious");
  EXPECT_EQ(fs::status(target).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
  EXPECT_FALSE(fs::is_symlink(key));
  EXPECT_EQ(contents(key), "secret\n");
  EXPECT_EQ(fs::status(key).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  // Again over the regular file it left: replaced too.
  { OutputFileStream out(key, OutputOpen::kPrivate); out << "again\n"; }
  EXPECT_EQ(contents(key), "again\n");
}

}  // namespace
}  // namespace pstwin
