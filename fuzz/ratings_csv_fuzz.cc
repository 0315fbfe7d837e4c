// Fuzz target: parse_ratings_table and split_ratings (runtime/data/ratings.h) on arbitrary text,
// as read_ratings reads a ratings CSV file. Whatever they accept must index users and items
// within their counts, the id maps must be ascending, and the split must keep every rating.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_support.h"
#include "runtime/data/ratings.h"
#include "runtime/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  pstwin::RatingsTable table;
  try {
    table = pstwin::parse_ratings_table(std::string_view(reinterpret_cast<const char*>(data), size),
                                        "fuzz.csv");
  } catch (const pstwin::DataError&) {
    return 0;  // rejected with file:line and a reason
  }
  using pstwin::fuzz::require;
  const pstwin::Ratings& all = table.all;
  require(all.size() > 0 && all.user.size() == all.size() && all.item.size() == all.size(),
          "one user and item per rating");
  require(all.num_users == all.user_ids.size() && all.num_items == all.item_ids.size(),
          "counts match the id maps");
  require(std::is_sorted(all.user_ids.begin(), all.user_ids.end()) &&
              std::adjacent_find(all.user_ids.begin(), all.user_ids.end()) == all.user_ids.end(),
          "user ids strictly ascending");
  for (std::size_t i = 0; i < all.size(); ++i)
    require(all.user[i] < all.num_users && all.item[i] < all.num_items, "indices within counts");

  try {
    const pstwin::RatingsSplit split = pstwin::split_ratings(table, 0.25, 7);
    require(split.train.rows + split.test.rows == all.size(), "the split keeps every rating");
  } catch (const pstwin::DataError&) {
    // too few ratings for both splits: rejected with a reason
  }
  return 0;
}
