// Ratings: (user, item, rating) triples for recommendation models, read from a CSV file with a
// header (MovieLens's ratings.csv), and the seeded train/test split.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/data/dataset.h"

namespace pstwin {

/// The ratings of one split, held by Dataset::ratings: row i of the Dataset is rating i here.
///
/// Id mapping: the file's user and item ids are arbitrary integers. Each distinct user id gets a
/// dense index, its rank among all distinct user ids of the whole file (ascending), and items
/// likewise: user_ids[u] is the id of user index u. The maps are built over the whole file before
/// it is split, so both splits share them and every user or item seen in either split has an
/// index; num_users and num_items are the same in both splits.
struct Ratings {
  std::vector<std::uint32_t> user;   ///< per rating: dense user index, < num_users
  std::vector<std::uint32_t> item;   ///< per rating: dense item index, < num_items
  std::vector<float> value;          ///< per rating: the rating as written (e.g. 0.5 .. 5 stars)
  std::size_t num_users = 0;
  std::size_t num_items = 0;
  double train_mean = 0.0;           ///< mean rating of the TRAINING split (same in both splits)
  std::vector<std::int64_t> user_ids;  ///< dense user index -> id in the file (ascending)
  std::vector<std::int64_t> item_ids;  ///< dense item index -> id in the file (ascending)

  std::size_t size() const { return value.size(); }
};

/// Every rating of a file in file order, with the id maps (see Ratings); train_mean is the mean
/// of all its ratings.
struct RatingsTable {
  std::string source;  ///< the file, for messages
  Ratings all;
};

/// Reads a ratings CSV file (RFC 4180): the first line is a header naming the columns; the
/// columns "userId", "movieId" and "rating" are found by name (case-sensitive), in any order, and
/// any other column is ignored. Fields may be quoted ("a,b"; "" is a literal quote; a quoted
/// field may span lines). Lines may end in LF or CRLF; a UTF-8 byte-order mark is skipped; blank
/// lines are skipped. Ids are integers (int64; surrounding spaces allowed), ratings finite
/// numbers. Throws DataError naming the file and the (first) line of the offending record for:
/// an unreadable file, a header without one of the three columns or naming one twice, a record
/// whose field count differs from the header's, an unterminated quote, text after a closing
/// quote, a quote inside an unquoted field, a bad id or rating, or a file with no ratings.
RatingsTable read_ratings_table(const std::string& path);

/// The same for ratings CSV text already in memory (e.g. the head of a file, cut after a record);
/// `path` names it in errors.
RatingsTable parse_ratings_table(std::string_view text, const std::string& path);

/// The two splits of a ratings file: ratings keep their file order within each split.
struct RatingsSplit {
  Dataset train;
  Dataset test;
};

/// How many of `n` ratings (of file `source`) go to the test split: round(test_fraction x n).
/// Throws DataError (line 0) when either split would be empty, and std::invalid_argument for a
/// test_fraction outside (0, 1).
std::size_t test_split_size(std::size_t n, double test_fraction, const std::string& source);

/// Splits `table` per rating: a permutation of the ratings drawn from Rng(seed) puts its first
/// round(test_fraction * N) ratings in the test split and the rest in the training split, so the
/// split is exact (e.g. 90/10) and the same seed gives the same split. Each Dataset has rows =
/// its ratings, cols = 0, no labels, and `ratings` set; train_mean is the training split's mean.
/// Throws DataError (line 0) when either split would be empty, and std::invalid_argument for a
/// test_fraction outside (0, 1).
RatingsSplit split_ratings(const RatingsTable& table, double test_fraction, std::uint64_t seed);

/// read_ratings_table then split_ratings.
RatingsSplit read_ratings(const std::string& path, double test_fraction, std::uint64_t seed);

}  // namespace pstwin
