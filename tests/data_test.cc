// Tests of the data readers (runtime/data/): LIBSVM, IDX, and Dataset::view.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "runtime/data/dataset.h"
#include "runtime/errors.h"
#include "tests/scratch_dir.h"

namespace pstwin {
namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<std::uint8_t>;

/// Each test writes its files into its own fresh folder, removed afterwards.
class DataTest : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& content) { return scratch_.write(name, content); }
  std::string write(const std::string& name, const Bytes& content) {
    return write(name, std::string(content.begin(), content.end()));
  }
  std::string write_gz(const std::string& name, const Bytes& content) {
    const std::string path = scratch_.file(name);
    gzFile f = gzopen(path.c_str(), "wb");
    EXPECT_NE(f, nullptr);
    EXPECT_EQ(gzwrite(f, content.data(), static_cast<unsigned>(content.size())),
              static_cast<int>(content.size()));
    gzclose(f);
    return path;
  }

  testing_support::ScratchDir scratch_{"pstwin_data"};
  const std::filesystem::path& dir_ = scratch_.path();
};

// ---- LIBSVM: good files ----

TEST_F(DataTest, LibsvmBinaryPlusMinusOne) {
  const std::string path = write("b.svm", "+1 1:0.5 3:2\n-1 2:1\n");
  const Dataset ds = read_libsvm(path);
  EXPECT_EQ(ds.source, path);
  EXPECT_TRUE(ds.sparse);
  EXPECT_EQ(ds.rows, 2u);
  EXPECT_EQ(ds.cols, 3u);
  EXPECT_EQ(ds.row_ptr, (std::vector<std::uint64_t>{0, 2, 3}));
  EXPECT_EQ(ds.col_idx, (std::vector<std::uint32_t>{0, 2, 1}));
  EXPECT_EQ(ds.values, (std::vector<float>{0.5f, 2.0f, 1.0f}));
  EXPECT_EQ(ds.labels, (std::vector<std::int32_t>{1, 0}));
  EXPECT_EQ(ds.labels01, (std::vector<float>{1.0f, 0.0f}));
  EXPECT_EQ(ds.num_classes, 2u);
}

TEST_F(DataTest, LibsvmZeroOneLabelsInAnySpelling) {
  const Dataset ds = read_libsvm(write("z.svm", "0 1:1\n1 2:1\n1.0 3:-2.5e-1\n+1 1:+3\n"));
  EXPECT_EQ(ds.labels, (std::vector<std::int32_t>{0, 1, 1, 1}));
  EXPECT_EQ(ds.labels01, (std::vector<float>{0.0f, 1.0f, 1.0f, 1.0f}));
  EXPECT_EQ(ds.values, (std::vector<float>{1.0f, 1.0f, -0.25f, 3.0f}));
  EXPECT_EQ(ds.num_classes, 2u);
}

TEST_F(DataTest, LibsvmMulticlass) {
  const Dataset ds = read_libsvm(write("m.svm", "3 1:1\n0 2:1\n7 5:1\n"));
  EXPECT_EQ(ds.labels, (std::vector<std::int32_t>{3, 0, 7}));
  EXPECT_EQ(ds.labels01, (std::vector<float>{3.0f, 0.0f, 7.0f}));
  EXPECT_EQ(ds.num_classes, 8u);
  EXPECT_EQ(ds.cols, 5u);
}

TEST_F(DataTest, LibsvmSkipsCommentsBlankLinesAndTrailingWhitespace) {
  const Dataset ds = read_libsvm(
      write("c.svm", "# header\n\n+1 1:1 # trailing comment\n   \n-1 2:2 \t \n#only\n\t\n"));
  EXPECT_EQ(ds.rows, 2u);
  EXPECT_EQ(ds.row_ptr, (std::vector<std::uint64_t>{0, 1, 2}));
  EXPECT_EQ(ds.col_idx, (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(ds.values, (std::vector<float>{1.0f, 2.0f}));
}

TEST_F(DataTest, LibsvmKeepsExplicitZeroAndItSetsCols) {
  const Dataset ds = read_libsvm(write("e.svm", "+1 1:1 10:0\n"));
  EXPECT_EQ(ds.cols, 10u);
  EXPECT_EQ(ds.col_idx, (std::vector<std::uint32_t>{0, 9}));
  EXPECT_EQ(ds.values, (std::vector<float>{1.0f, 0.0f}));
}

TEST_F(DataTest, LibsvmCrlfLineEndings) {
  const Dataset ds = read_libsvm(write("w.svm", "+1 1:1 2:2\r\n-1 3:3\r\n\r\n"));
  EXPECT_EQ(ds.rows, 2u);
  EXPECT_EQ(ds.cols, 3u);
  EXPECT_EQ(ds.values, (std::vector<float>{1.0f, 2.0f, 3.0f}));
  EXPECT_EQ(ds.labels, (std::vector<std::int32_t>{1, 0}));
}

TEST_F(DataTest, LibsvmLabelOnlyRowAndNoFinalNewline) {
  const Dataset ds = read_libsvm(write("l.svm", "+1\n-1 2:1"));
  EXPECT_EQ(ds.rows, 2u);
  EXPECT_EQ(ds.row_ptr, (std::vector<std::uint64_t>{0, 0, 1}));
  EXPECT_EQ(ds.cols, 2u);
}

// ---- LIBSVM: broken files ----

struct BrokenLine {
  std::string line;     // the bad line, written as line 3 after a good line and a blank one
  std::string message;  // a part of what() that must appear
};

TEST_F(DataTest, LibsvmBrokenLineNamesFileLineAndProblem) {
  const std::vector<BrokenLine> cases = {
      {"+1 abc", "expected index:value, got 'abc'"},
      {"+1 1:", "expected index:value, got '1:'"},
      {"+1 :1", "expected index:value, got ':1'"},
      {"+1 x:1", "integer index, got 'x:1'"},
      {"+1 -3:1", "integer index, got '-3:1'"},
      {"+1 0:1", "1-based"},
      {"+1 99999999999:1", "index '99999999999' is too large"},
      {"+1 7:1 5:1", "index 5 not greater than previous index 7"},
      {"+1 3:1 3:2", "index 3 not greater than previous index 3"},
      {"2.5 1:1", "label '2.5' is not an integer"},
      {"-2 1:1", "label '-2' is negative"},
      {"abc 1:1", "label 'abc' is not a number"},
      {"1:1 2:1", "expected a label first"},
      {"nan 1:1", "label 'nan' is not an integer"},
      {"+1 1:abc", "value 'abc' of index 1 is not a finite number"},
      {"+1 2:nan", "value 'nan' of index 2 is not a finite number"},
      {"+1 2:inf", "value 'inf' of index 2 is not a finite number"},
      {"+1 2:1e99", "value '1e99' of index 2 is not a finite number"},
      {"+1 2:1:1", "value '1:1' of index 2 is not a finite number"},
      {"+1 qid:x 1:1", "expected qid:<non-negative integer>, got 'qid:x'"},
      {"+1 qid: 1:1", "expected qid:<non-negative integer>, got 'qid:'"},
      {"+1 1:1 qid:3", "integer index, got 'qid:3'"},  // only right after the label
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(cases[i].line);
    const std::string name = "broken" + std::to_string(i) + ".svm";
    const std::string path = write(name, "+1 1:1\n\n" + cases[i].line + "\n-1 1:1\n");
    try {
      read_libsvm(path);
      ADD_FAILURE() << "no error";
    } catch (const DataError& e) {
      EXPECT_EQ(e.file(), path);
      EXPECT_EQ(e.line(), 3u);
      const std::string what = e.what();
      EXPECT_NE(what.find(path + ":3: "), std::string::npos) << what;
      EXPECT_NE(what.find(cases[i].message), std::string::npos) << what;
    }
  }
}

TEST_F(DataTest, LibsvmLineNumbersCountCrlfAndCommentLines) {
  const std::string path = write("n.svm", "# c\r\n+1 1:1\r\n\r\n-1 2:1 1:1\r\n");
  try {
    read_libsvm(path);
    ADD_FAILURE() << "no error";
  } catch (const DataError& e) {
    EXPECT_EQ(e.line(), 4u) << e.what();
  }
}

TEST_F(DataTest, LibsvmEmptyFileIsAnError) {
  for (const char* content : {"", "# only a comment\n\n  \n"}) {
    SCOPED_TRACE(content);
    const std::string path = write("empty.svm", content);
    try {
      read_libsvm(path);
      ADD_FAILURE() << "no error";
    } catch (const DataError& e) {
      EXPECT_EQ(e.file(), path);
      EXPECT_NE(std::string(e.what()).find("no examples"), std::string::npos) << e.what();
    }
  }
}

TEST_F(DataTest, LibsvmInMemoryIsTheFileReaderWithTheSourceInErrors) {
  const std::string text = "+1 1:0.5 3:2\n-1 2:1\n";
  const Dataset from_file = read_libsvm(write("b.svm", text));
  const Dataset in_memory = parse_libsvm(text, "mem.svm");
  EXPECT_EQ(in_memory.source, "mem.svm");
  EXPECT_EQ(in_memory.row_ptr, from_file.row_ptr);
  EXPECT_EQ(in_memory.col_idx, from_file.col_idx);
  EXPECT_EQ(in_memory.values, from_file.values);
  EXPECT_EQ(in_memory.labels, from_file.labels);
  try {
    parse_libsvm("+1 1:1\n+1 x:1\n", "mem.svm");
    ADD_FAILURE() << "no error";
  } catch (const DataError& e) {
    EXPECT_EQ(e.file(), "mem.svm");
    EXPECT_EQ(e.line(), 2u);
  }
}

TEST_F(DataTest, LibsvmMissingFileIsNamed) {
  const std::string path = (dir_ / "no_such.svm").string();
  try {
    read_libsvm(path);
    ADD_FAILURE() << "no error";
  } catch (const DataError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("cannot open"), std::string::npos) << e.what();
  }
}

// ---- LIBSVM: SVMlight ranking files, and where each label first appears ----

using Seen = std::vector<std::pair<std::int32_t, std::uint64_t>>;

/// Dataset::labels_seen as (label, line) pairs, to compare in one go.
Seen seen(const std::vector<LabelSeen>& labels) {
  Seen out;
  for (const LabelSeen& l : labels) out.emplace_back(l.label, l.line);
  return out;
}

TEST_F(DataTest, LibsvmSkipsSvmlightQueryIds) {
  // The reproducer: qid:7 after the label, with comments, CRLF, a blank line, '+1', trailing
  // spaces. It reads exactly as the same rows without qid.
  const Dataset with_qid = read_libsvm(PSTWIN_SOURCE_DIR "/tests/inputs/qid.libsvm");
  const Dataset plain = read_libsvm(PSTWIN_SOURCE_DIR "/tests/inputs/qid-ref.libsvm");
  EXPECT_EQ(with_qid.rows, 2u);
  EXPECT_EQ(with_qid.labels, (std::vector<std::int32_t>{1, 0}));
  EXPECT_EQ(with_qid.cols, plain.cols);
  EXPECT_EQ(with_qid.row_ptr, plain.row_ptr);
  EXPECT_EQ(with_qid.col_idx, plain.col_idx);
  EXPECT_EQ(with_qid.values, plain.values);
  EXPECT_EQ(with_qid.labels, plain.labels);
  EXPECT_EQ(read_libsvm(write("q.svm", "3 qid:1 1:2\n1 qid:1\n")).row_ptr, (std::vector<std::uint64_t>{0, 1, 1}));
}

TEST_F(DataTest, LibsvmRecordsEachLabelsFirstLine) {
  const std::string path = write("l.svm", "# c\n2 1:1\n\n4 2:1\n2 1:1\n-1 1:1\n");
  const Dataset ds = read_libsvm(path);
  EXPECT_EQ(ds.labels_file, path);
  EXPECT_FALSE(ds.labels_by_record);
  EXPECT_EQ(seen(ds.labels_seen), (Seen{{2, 2}, {4, 4}, {-1, 6}}));  // -1 as written; its class is 0
  EXPECT_EQ(ds.labels[3], 0);
}

TEST_F(DataTest, LibsvmMinusOneAndZeroInOneFileAreAnError) {
  // Both would be class 0: three classes -1, 0, 1 would silently become two.
  const std::string path = write("t.svm", "-1 1:1\n1 1:1\n0 2:1\n");
  try {
    read_libsvm(path);
    ADD_FAILURE() << "no error";
  } catch (const DataError& e) {
    EXPECT_EQ(e.line(), 3u);
    EXPECT_NE(std::string(e.what()).find("label 0 after label -1 on line 1: -1 (of the -1/+1 convention) and 0 (of "
                                         "the 0/1 convention) would both be class 0"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(DataTest, ParseLibsvmReadsTextAndNamesThePath) {
  const Dataset ds = parse_libsvm("+1 2:1\n-1 1:1\n", "head-of.svm");
  EXPECT_EQ(ds.rows, 2u);
  EXPECT_EQ(ds.source, "head-of.svm");
  try {
    parse_libsvm("+1 2:1\n+1 x\n", "head-of.svm");
    ADD_FAILURE() << "no error";
  } catch (const DataError& e) {
    EXPECT_EQ(std::string(e.what()).substr(0, 14), "head-of.svm:2:");
  }
}

// ---- Dataset::view ----

TEST_F(DataTest, SparseViewWidensToOverride) {
  const Dataset ds = read_libsvm(write("v.svm", "+1 1:1 3:2\n-1 2:1\n"));
  FeatureView v = ds.view();
  EXPECT_TRUE(v.sparse);
  EXPECT_EQ(v.rows(), 2u);
  EXPECT_EQ(v.cols(), 3u);
  EXPECT_EQ(v.csr.row_ptr, ds.row_ptr.data());
  EXPECT_EQ(v.csr.col_idx, ds.col_idx.data());
  EXPECT_EQ(v.csr.values, ds.values.data());
  EXPECT_EQ(ds.view(10).cols(), 10u);
  EXPECT_EQ(ds.view(2).cols(), 3u);  // narrowing would cut stored indices off: ignored
}

// ---- IDX ----

void put_be32(Bytes& b, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) b.push_back(static_cast<std::uint8_t>(v >> shift));
}

Bytes idx_images(std::uint32_t n, std::uint32_t r, std::uint32_t c, const Bytes& pixels,
                 std::uint32_t magic = 0x00000803) {
  Bytes b;
  put_be32(b, magic);
  put_be32(b, n);
  put_be32(b, r);
  put_be32(b, c);
  b.insert(b.end(), pixels.begin(), pixels.end());
  return b;
}

Bytes idx_labels(const Bytes& labels, std::uint32_t magic = 0x00000801) {
  Bytes b;
  put_be32(b, magic);
  put_be32(b, static_cast<std::uint32_t>(labels.size()));
  b.insert(b.end(), labels.begin(), labels.end());
  return b;
}

// Three 2x2 images and their labels.
const Bytes kPixels = {0, 255, 51, 102, 1, 2, 3, 4, 255, 255, 0, 0};
const Bytes kLabels = {0, 9, 3};

void expect_tiny_idx(const Dataset& ds) {
  EXPECT_FALSE(ds.sparse);
  EXPECT_EQ(ds.rows, 3u);
  EXPECT_EQ(ds.cols, 4u);
  ASSERT_EQ(ds.values.size(), kPixels.size());
  for (std::size_t i = 0; i < kPixels.size(); ++i) {
    EXPECT_EQ(ds.values[i], static_cast<float>(kPixels[i]) / 255.0f) << i;
  }
  EXPECT_EQ(ds.values[1], 1.0f);
  EXPECT_EQ(ds.labels, (std::vector<std::int32_t>{0, 9, 3}));
  EXPECT_EQ(ds.labels01, (std::vector<float>{0.0f, 9.0f, 3.0f}));
  EXPECT_EQ(ds.num_classes, 10u);
  EXPECT_TRUE(ds.row_ptr.empty());
  EXPECT_TRUE(ds.col_idx.empty());
}

TEST_F(DataTest, IdxPlainFiles) {
  expect_tiny_idx(
      read_idx(write("img", idx_images(3, 2, 2, kPixels)), write("lbl", idx_labels(kLabels))));
}

TEST_F(DataTest, IdxGzippedAndMixedFiles) {
  const std::string img_gz = write_gz("img.gz", idx_images(3, 2, 2, kPixels));
  const std::string lbl_gz = write_gz("lbl.gz", idx_labels(kLabels));
  expect_tiny_idx(read_idx(img_gz, lbl_gz));
  expect_tiny_idx(read_idx(img_gz, write("lbl", idx_labels(kLabels))));
}

TEST_F(DataTest, IdxRecordsEachLabelsFirstRecord) {
  const std::string lbl = write("lbl", idx_labels({5, 5, 9, 5, 0}));
  const Dataset ds = read_idx(write("img", idx_images(5, 1, 1, {1, 2, 3, 4, 5})), lbl);
  EXPECT_EQ(ds.labels_file, lbl);
  EXPECT_TRUE(ds.labels_by_record);
  EXPECT_EQ(seen(ds.labels_seen), (Seen{{5, 1}, {9, 3}, {0, 5}}));
}

TEST_F(DataTest, IdxHeadReadsTheHeadersAndLabelsNotTheImages) {
  // Images cut after their header: read_idx refuses them, the head does not look.
  const std::string img = write("img", idx_images(3, 2, 2, {}));
  const std::string lbl_gz = write_gz("lbl.gz", idx_labels(kLabels));
  const IdxHead head = read_idx_head(img, lbl_gz, SIZE_MAX);
  EXPECT_EQ(head.images, 3u);
  EXPECT_EQ(head.pixels, 4u);
  EXPECT_EQ(head.labels_read, 3u);
  EXPECT_EQ(seen(head.labels_seen), (Seen{{0, 1}, {9, 2}, {3, 3}}));
  EXPECT_EQ(read_idx_head(img, lbl_gz, 1).labels_read, 1u);
  EXPECT_THROW(read_idx(img, lbl_gz), DataError);
  // What the head does check: magic, counts, and that the labels are there.
  EXPECT_THROW(read_idx_head(lbl_gz, lbl_gz, SIZE_MAX), DataError);
  EXPECT_THROW(read_idx_head(img, write("two", idx_labels({1, 2})), SIZE_MAX), DataError);
  Bytes cut = idx_labels(kLabels);
  cut.pop_back();
  try {
    read_idx_head(img, write("cut", cut), SIZE_MAX);
    ADD_FAILURE() << "no error";
  } catch (const DataError& e) {
    EXPECT_NE(std::string(e.what()).find("truncated: header says 3 labels, file has 2"), std::string::npos) << e.what();
  }
}

TEST_F(DataTest, IdxInMemoryChecksAsTheFileReaderDoes) {
  const Bytes images = idx_images(3, 2, 2, kPixels);
  const Bytes labels = idx_labels(kLabels);
  expect_tiny_idx(parse_idx(images.data(), images.size(), "img", labels.data(), labels.size(), "lbl"));
  const Bytes two = idx_labels({0, 1});
  try {
    parse_idx(images.data(), images.size(), "img", two.data(), two.size(), "lbl");
    ADD_FAILURE() << "no error";
  } catch (const DataError& e) {
    EXPECT_EQ(e.file(), "lbl");
    EXPECT_NE(std::string(e.what()).find("has 2 labels but img has 3 images"), std::string::npos) << e.what();
  }
}

TEST_F(DataTest, IdxDenseView) {
  const Dataset ds =
      read_idx(write("img", idx_images(3, 2, 2, kPixels)), write("lbl", idx_labels(kLabels)));
  const FeatureView v = ds.view();
  EXPECT_FALSE(v.sparse);
  EXPECT_EQ(v.rows(), 3u);
  EXPECT_EQ(v.cols(), 4u);
  EXPECT_EQ(v.dense.values, ds.values.data());
  EXPECT_EQ(ds.view(4).cols(), 4u);
  EXPECT_THROW(ds.view(5), DataError);  // a dense row's stride cannot change without a copy
}

/// Runs read_idx and checks the DataError names `bad_file`, line 0, and contains `message`.
void expect_idx_error(const std::string& images, const std::string& labels,
                      const std::string& bad_file, const std::string& message) {
  try {
    read_idx(images, labels);
    ADD_FAILURE() << "no error";
  } catch (const DataError& e) {
    EXPECT_EQ(e.file(), bad_file) << e.what();
    EXPECT_EQ(e.line(), 0u);
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

TEST_F(DataTest, IdxWrongMagic) {
  const std::string img = write("img", idx_images(3, 2, 2, kPixels));
  const std::string lbl = write("lbl", idx_labels(kLabels));
  // Labels given as images and the other way round.
  expect_idx_error(lbl, img, lbl, "magic 0x00000801 is not 0x00000803");
  expect_idx_error(img, img, img, "magic 0x00000803 is not 0x00000801");
  const std::string text = write("text", std::string("hello world, not IDX"));
  expect_idx_error(text, lbl, text, "magic");
}

TEST_F(DataTest, IdxTruncatedFiles) {
  const std::string lbl = write("lbl", idx_labels(kLabels));
  Bytes img = idx_images(3, 2, 2, kPixels);
  img.pop_back();
  const std::string short_img = write("short", img);
  expect_idx_error(short_img, lbl, short_img, "truncated");
  const std::string short_gz = write_gz("short.gz", img);
  expect_idx_error(short_gz, lbl, short_gz, "truncated");
  const std::string header_only = write("hdr", Bytes{0, 0, 8, 3, 0, 0});
  expect_idx_error(header_only, lbl, header_only, "truncated");
  const std::string tiny = write("tiny", Bytes{0, 0});
  expect_idx_error(tiny, lbl, tiny, "truncated");
  Bytes lbl_short = idx_labels(kLabels);
  lbl_short.pop_back();
  const std::string img_ok = write("img", idx_images(3, 2, 2, kPixels));
  const std::string lbl_bad = write("lbl_short", lbl_short);
  expect_idx_error(img_ok, lbl_bad, lbl_bad, "truncated");
}

TEST_F(DataTest, IdxCutOrCorruptGzipStreamIsAnError) {
  const std::string lbl = write("lbl", idx_labels(kLabels));
  const Bytes img = idx_images(3, 2, 2, kPixels);
  // Cut in half, and cut by the 8-byte trailer only (all the data inflates; its CRC is gone).
  const std::string half = write_gz("half.gz", img);
  fs::resize_file(half, fs::file_size(half) / 2);
  expect_idx_error(half, lbl, half, "truncated");
  const std::string no_trailer = write_gz("no_trailer.gz", img);
  fs::resize_file(no_trailer, fs::file_size(no_trailer) - 8);
  expect_idx_error(no_trailer, lbl, no_trailer, "truncated: gzip stream ends early");
  // A wrong CRC in the trailer.
  const std::string bad_crc = write_gz("bad_crc.gz", img);
  {
    std::fstream f(bad_crc, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(-8, std::ios::end);
    const char crc0 = static_cast<char>(f.get());
    f.seekp(-8, std::ios::end);
    f.put(static_cast<char>(crc0 ^ 0xFF));
  }
  expect_idx_error(bad_crc, lbl, bad_crc, "cannot read");
}

TEST_F(DataTest, IdxTrailingBytesAreAnError) {
  Bytes img = idx_images(3, 2, 2, kPixels);
  img.push_back(7);
  const std::string path = write("long", img);
  expect_idx_error(path, write("lbl", idx_labels(kLabels)), path, "size mismatch");
}

TEST_F(DataTest, IdxImageAndLabelCountsDiffer) {
  const std::string img = write("img", idx_images(3, 2, 2, kPixels));
  const std::string lbl = write("lbl", idx_labels(Bytes{1, 2}));
  expect_idx_error(img, lbl, lbl, "has 2 labels but " + img + " has 3 images");
}

TEST_F(DataTest, IdxMissingFileIsNamed) {
  const std::string lbl = write("lbl", idx_labels(kLabels));
  const std::string missing = (dir_ / "no_such.gz").string();
  expect_idx_error(missing, lbl, missing, "cannot open");
  const std::string img = write("img", idx_images(3, 2, 2, kPixels));
  expect_idx_error(img, missing, missing, "cannot open");
}

// ---- Real data sets (skipped when absent) ----

TEST(DataRealTest, A9a) {
  const std::string dir = PSTWIN_SOURCE_DIR "/../shared/data/a9a/";
  if (!fs::exists(dir + "a9a") || !fs::exists(dir + "a9a.t")) {
    GTEST_SKIP() << "a9a not found in " << dir;
  }
  const Dataset train = read_libsvm(dir + "a9a");
  EXPECT_EQ(train.rows, 32561u);
  EXPECT_EQ(train.cols, 123u);
  EXPECT_EQ(train.num_classes, 2u);
  EXPECT_EQ(train.values.size(), 451592u);
  EXPECT_EQ(train.row_ptr.back(), 451592u);
  EXPECT_EQ(train.labels[0], 0);  // first line: "-1 3:1 11:1 ..."
  EXPECT_EQ(train.col_idx[0], 2u);

  const Dataset test = read_libsvm(dir + "a9a.t");
  EXPECT_EQ(test.rows, 16281u);
  EXPECT_EQ(test.cols, 123u);  // only because line 5 ends with an explicit "123:0"
  EXPECT_EQ(test.num_classes, 2u);
  EXPECT_EQ(test.values.size(), 225732u);
}

TEST(DataRealTest, FashionMnist) {
  const std::string dir = "/usr/share/datasets/fashion-mnist/";
  const std::string files[] = {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
                               "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"};
  for (const auto& f : files) {
    if (!fs::exists(dir + f)) GTEST_SKIP() << "Fashion-MNIST not found: " << dir + f;
  }
  const Dataset train = read_idx(dir + files[0], dir + files[1]);
  EXPECT_FALSE(train.sparse);
  EXPECT_EQ(train.rows, 60000u);
  EXPECT_EQ(train.cols, 784u);
  EXPECT_EQ(train.num_classes, 10u);
  EXPECT_EQ(train.values.size(), 60000u * 784u);
  EXPECT_EQ(train.labels[0], 9);               // an ankle boot
  EXPECT_EQ(train.values[96], 1.0f / 255.0f);  // its first non-zero pixel

  const Dataset test = read_idx(dir + files[2], dir + files[3]);
  EXPECT_EQ(test.rows, 10000u);
  EXPECT_EQ(test.cols, 784u);
  EXPECT_EQ(test.num_classes, 10u);
  EXPECT_EQ(test.labels[1], 2);
}

}  // namespace
}  // namespace pstwin
