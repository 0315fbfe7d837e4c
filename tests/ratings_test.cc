// Tests of the ratings CSV reader and the seeded train/test split (runtime/data/ratings.h).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "runtime/data/ratings.h"
#include "runtime/errors.h"

namespace pstwin {
namespace {

namespace fs = std::filesystem;

class RatingsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) /
           ("pstwin_ratings_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& content) {
    const std::string path = (dir_ / "ratings.csv").string();
    std::ofstream(path, std::ios::binary) << content;
    return path;
  }

  /// The line a DataError names, or -1 when the call does not throw DataError.
  std::int64_t error_line(const std::string& content, std::string* message = nullptr) {
    try {
      read_ratings_table(write(content));
    } catch (const DataError& e) {
      if (message) *message = e.what();
      return static_cast<std::int64_t>(e.line());
    }
    return -1;
  }

  fs::path dir_;
};

TEST_F(RatingsTest, MovieLensLayoutMapsIdsToDenseIndicesByRank) {
  const RatingsTable t = read_ratings_table(write(
      "userId,movieId,rating,timestamp\n"
      "7,100,4.0,964982703\n"
      "3,20,3.5,964981247\n"
      "7,20,5,964982224\n"
      "-2,5000000000,0.5,1\n"));
  const Ratings& r = t.all;
  EXPECT_EQ(r.size(), 4u);
  EXPECT_EQ(r.num_users, 3u);
  EXPECT_EQ(r.num_items, 3u);
  // Dense index = rank of the id among the distinct ids (ascending), whatever the line order.
  EXPECT_EQ(r.user_ids, (std::vector<std::int64_t>{-2, 3, 7}));
  EXPECT_EQ(r.item_ids, (std::vector<std::int64_t>{20, 100, 5000000000}));
  EXPECT_EQ(r.user, (std::vector<std::uint32_t>{2, 1, 2, 0}));
  EXPECT_EQ(r.item, (std::vector<std::uint32_t>{1, 0, 0, 2}));
  EXPECT_EQ(r.value, (std::vector<float>{4.0f, 3.5f, 5.0f, 0.5f}));
  EXPECT_DOUBLE_EQ(r.train_mean, 13.0 / 4.0);
}

TEST_F(RatingsTest, ColumnsAreFoundByNameInAnyOrderAndOthersIgnored) {
  const RatingsTable t = read_ratings_table(write(
      "title,rating,movieId,extra,userId\n"
      "Heat,4.5,6,x,1\n"
      "Up,2,7,y,1\n"));
  EXPECT_EQ(t.all.value, (std::vector<float>{4.5f, 2.0f}));
  EXPECT_EQ(t.all.item_ids, (std::vector<std::int64_t>{6, 7}));
  EXPECT_EQ(t.all.user_ids, (std::vector<std::int64_t>{1}));
}

TEST_F(RatingsTest, QuotedFieldsWithCommasEscapedQuotesAndLineBreaks) {
  const RatingsTable t = read_ratings_table(write(
      "\"userId\",\"title\",movieId,rating\n"
      "1,\"Lock, Stock and Two Smoking Barrels\",10,\"4.0\"\n"
      "2,\"The \"\"Great\"\" Escape\",11,3\n"
      "3,\"two\nlines\",12,1\n"
      "4,\"\",13,2\n"));
  EXPECT_EQ(t.all.value, (std::vector<float>{4.0f, 3.0f, 1.0f, 2.0f}));
  EXPECT_EQ(t.all.item_ids, (std::vector<std::int64_t>{10, 11, 12, 13}));
}

TEST_F(RatingsTest, InMemoryTextReadsAsTheFileWithTheSourceInErrors) {
  const std::string text = "userId,movieId,rating\n7,100,4.0\n3,20,3.5\n";
  const RatingsTable from_file = read_ratings_table(write(text));
  const RatingsTable in_memory = parse_ratings_table(text, "mem.csv");
  EXPECT_EQ(in_memory.source, "mem.csv");
  EXPECT_EQ(in_memory.all.user, from_file.all.user);
  EXPECT_EQ(in_memory.all.item_ids, from_file.all.item_ids);
  EXPECT_EQ(in_memory.all.value, from_file.all.value);
  try {
    parse_ratings_table("userId,movieId,rating\n1,2,x\n", "mem.csv");
    ADD_FAILURE() << "no error";
  } catch (const DataError& e) {
    EXPECT_EQ(e.file(), "mem.csv");
    EXPECT_EQ(e.line(), 2u);
  }
}

TEST_F(RatingsTest, CrlfBomBlankLinesAndNoFinalNewline) {
  const RatingsTable t = read_ratings_table(write(
      "\xEF\xBB\xBFuserId,movieId,rating\r\n"
      "1,2,3.5\r\n"
      "\r\n"
      "1,\"3\",4\r\n"
      "\n"
      "2,2, 1 "));
  EXPECT_EQ(t.all.value, (std::vector<float>{3.5f, 4.0f, 1.0f}));
  EXPECT_EQ(t.all.num_users, 2u);
  EXPECT_EQ(t.all.num_items, 2u);
}

TEST_F(RatingsTest, EveryKindOfBadLineIsNamedByItsLine) {
  const std::string header = "userId,movieId,rating\n";
  std::string msg;
  EXPECT_EQ(error_line(header + "1,2,3\n1,2\n", &msg), 3);
  EXPECT_NE(msg.find("expected 3 fields"), std::string::npos) << msg;
  EXPECT_EQ(error_line(header + "1,2,3,4\n"), 2);
  EXPECT_EQ(error_line(header + "1,2,3\nx,2,3\n", &msg), 3);
  EXPECT_NE(msg.find("userId 'x' is not an integer"), std::string::npos) << msg;
  EXPECT_EQ(error_line(header + "1,2.5,3\n", &msg), 2);
  EXPECT_NE(msg.find("movieId"), std::string::npos) << msg;
  EXPECT_EQ(error_line(header + "1,2,\n", &msg), 2);
  EXPECT_NE(msg.find("rating '' is not a finite number"), std::string::npos) << msg;
  EXPECT_EQ(error_line(header + "1,2,nan\n"), 2);
  EXPECT_EQ(error_line(header + "1,2,1e39\n"), 2);  // overflows float32
  EXPECT_EQ(error_line(header + "1,2,3\n1,99999999999999999999,3\n"), 3);
  EXPECT_EQ(error_line(header + "1,2,3\n1,2,\"4\n", &msg), 3);
  EXPECT_NE(msg.find("unterminated"), std::string::npos) << msg;
  EXPECT_EQ(error_line(header + "1,\"2\"x,3\n", &msg), 2);
  EXPECT_NE(msg.find("after a closing quote"), std::string::npos) << msg;
  EXPECT_EQ(error_line(header + "1,2\"2,3\n", &msg), 2);
  EXPECT_NE(msg.find("quote inside an unquoted field"), std::string::npos) << msg;
  // A record after a quoted line break is numbered by its physical line.
  EXPECT_EQ(error_line("userId,movieId,rating,note\n1,2,3,\"a\nb\"\n1,2,x,c\n"), 4);
}

TEST_F(RatingsTest, BadHeadersAndEmptyFiles) {
  std::string msg;
  EXPECT_EQ(error_line("userId,itemId,rating\n1,2,3\n", &msg), 1);
  EXPECT_NE(msg.find("no column \"movieId\""), std::string::npos) << msg;
  EXPECT_EQ(error_line("userId,movieId,rating,rating\n1,2,3,4\n", &msg), 1);
  EXPECT_NE(msg.find("twice"), std::string::npos) << msg;
  EXPECT_EQ(error_line(""), 1);
  EXPECT_EQ(error_line("userId,movieId,rating\n", &msg), 1);
  EXPECT_NE(msg.find("no ratings"), std::string::npos) << msg;
  EXPECT_THROW(read_ratings_table((dir_ / "missing.csv").string()), DataError);
}

/// A table of n ratings: user j % 7, item j % 13, rating 1 + j % 5.
RatingsTable synthetic_table(std::size_t n) {
  RatingsTable t;
  t.source = "synthetic";
  for (std::size_t j = 0; j < n; ++j) {
    t.all.user.push_back(static_cast<std::uint32_t>(j % 7));
    t.all.item.push_back(static_cast<std::uint32_t>(j % 13));
    t.all.value.push_back(static_cast<float>(1 + j % 5));
  }
  t.all.num_users = 7;
  t.all.num_items = 13;
  return t;
}

TEST(RatingsSplit, IsExactlyNinetyTenDisjointCompleteAndDeterministic) {
  const RatingsTable t = synthetic_table(1003);
  const RatingsSplit a = split_ratings(t, 0.1, 42);
  const RatingsSplit b = split_ratings(t, 0.1, 42);
  const RatingsSplit c = split_ratings(t, 0.1, 43);
  ASSERT_EQ(a.test.rows, 100u);  // round(100.3)
  ASSERT_EQ(a.train.rows, 903u);
  ASSERT_TRUE(a.train.ratings && a.test.ratings);
  EXPECT_EQ(a.test.ratings->value, b.test.ratings->value);
  EXPECT_EQ(a.test.ratings->user, b.test.ratings->user);
  EXPECT_EQ(a.test.ratings->item, b.test.ratings->item);
  // Another seed draws another split (a different multiset of (user, item, rating) triples).
  auto triples = [](const Ratings& r) {
    std::multiset<std::tuple<std::uint32_t, std::uint32_t, float>> s;
    for (std::size_t j = 0; j < r.size(); ++j) s.insert({r.user[j], r.item[j], r.value[j]});
    return s;
  };
  EXPECT_NE(triples(*a.test.ratings), triples(*c.test.ratings));
  // Train and test together are exactly the table.
  auto all = triples(*a.train.ratings);
  for (const auto& x : triples(*a.test.ratings)) all.insert(x);
  EXPECT_EQ(all, triples(t.all));
  // Both splits share the id space; the mean is the training split's.
  EXPECT_EQ(a.test.ratings->num_users, 7u);
  EXPECT_EQ(a.test.ratings->num_items, 13u);
  double sum = 0;
  for (float v : a.train.ratings->value) sum += v;
  EXPECT_DOUBLE_EQ(a.train.ratings->train_mean, sum / 903.0);
  EXPECT_DOUBLE_EQ(a.test.ratings->train_mean, a.train.ratings->train_mean);
  EXPECT_EQ(a.train.cols, 0u);
  EXPECT_TRUE(a.train.labels.empty());
}

TEST(RatingsSplit, RejectsEmptySplitsAndBadFractions) {
  EXPECT_THROW(split_ratings(synthetic_table(4), 0.1, 1), DataError);  // round(0.4) = 0
  EXPECT_THROW(split_ratings(synthetic_table(100), 0.0, 1), std::invalid_argument);
  EXPECT_THROW(split_ratings(synthetic_table(100), 1.0, 1), std::invalid_argument);
}

TEST_F(RatingsTest, UsersSeenOnlyInTheTestSplitStillHaveIndices) {
  std::string text = "userId,movieId,rating\n";
  for (int j = 0; j < 50; ++j) text += std::to_string(j) + "," + std::to_string(j % 3) + ",3\n";
  const RatingsSplit s = read_ratings(write(text), 0.2, 5);
  EXPECT_EQ(s.test.rows, 10u);
  EXPECT_EQ(s.train.ratings->num_users, 50u);
  for (auto u : s.test.ratings->user) EXPECT_LT(u, 50u);
  // Each user has one rating, so the test split's users appear in no training rating.
  const auto& tr = s.train.ratings->user;
  for (auto u : s.test.ratings->user) EXPECT_EQ(std::count(tr.begin(), tr.end(), u), 0);
}

const char* kMovieLens = PSTWIN_SOURCE_DIR "/../shared/data/movielens-small/ratings.csv";

TEST(RatingsMovieLens, SmallSetReadsWholeAndSplitsNinetyTen) {
  if (!fs::exists(kMovieLens)) GTEST_SKIP() << "MovieLens not found beside the checkout";
  const RatingsTable t = read_ratings_table(kMovieLens);
  EXPECT_EQ(t.all.size(), 100836u);
  EXPECT_EQ(t.all.num_users, 610u);
  EXPECT_EQ(t.all.num_items, 9724u);
  const RatingsSplit s = split_ratings(t, 0.1, 1);
  EXPECT_EQ(s.test.rows, 10084u);
  EXPECT_EQ(s.train.rows, 90752u);
  EXPECT_NEAR(s.train.ratings->train_mean, 3.50, 0.02);
}

}  // namespace
}  // namespace pstwin
