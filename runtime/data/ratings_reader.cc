// read_ratings_table and split_ratings: a ratings CSV (RFC 4180) into dense-indexed triples, and
// the seeded per-rating train/test split.
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <string_view>

#include "runtime/data/ratings.h"
#include "runtime/data/read_file.h"
#include "runtime/errors.h"
#include "runtime/rng.h"
#include "runtime/count_text.h"

namespace pstwin {
namespace {

/// Quotes a field for a message, cut short so a binary file does not flood the terminal.
std::string quoted(std::string_view s) {
  constexpr std::size_t kMax = 40;
  std::string out(1, '\'');  // appended piecewise: GCC 12 misreads "'" + std::string (-Wrestrict)
  out.append(s.substr(0, kMax));
  out.append(s.size() > kMax ? "...'" : "'");
  return out;
}

/// Splits the text into CSV records. Each call to next() yields one record's fields (unquoted,
/// escapes resolved) and the 1-based line it starts on; false at the end of the text.
class CsvRecords {
 public:
  CsvRecords(std::string_view text, const std::string& path) : text_(text), path_(path) {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;  // UTF-8 byte-order mark
  }

  bool next(std::vector<std::string>& fields, std::uint64_t& line) {
    for (;;) {
      if (pos_ >= text_.size()) return false;
      line = line_;
      fields.clear();
      // A blank line (LF or CRLF alone) is skipped rather than read as one empty field.
      if (text_[pos_] == '\n' || text_.substr(pos_, 2) == "\r\n") {
        pos_ += text_[pos_] == '\n' ? 1 : 2;
        ++line_;
        continue;
      }
      for (;;) {
        fields.emplace_back();
        if (!read_field(fields.back(), line)) return true;  // end of record
      }
    }
  }

 private:
  /// Reads one field into `out`; returns true when a comma follows (more fields in the record),
  /// false at the end of the record (which it consumes).
  bool read_field(std::string& out, std::uint64_t record_line) {
    if (pos_ < text_.size() && text_[pos_] == '"') {
      ++pos_;
      for (;;) {
        const std::size_t q = text_.find('"', pos_);
        if (q == std::string_view::npos)
          throw DataError(path_, record_line, "unterminated quoted field (no closing '\"')");
        const std::string_view chunk = text_.substr(pos_, q - pos_);
        line_ += static_cast<std::uint64_t>(std::count(chunk.begin(), chunk.end(), '\n'));
        out.append(chunk);
        pos_ = q + 1;
        if (pos_ < text_.size() && text_[pos_] == '"') {  // "" is a literal quote
          out.push_back('"');
          ++pos_;
          continue;
        }
        break;
      }
      return end_of_field(record_line, true);
    }
    const std::size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '\n') {
      if (text_[pos_] == '"')
        throw DataError(path_, record_line,
                        "a quote inside an unquoted field; quote the whole field and double the "
                        "quote (\"\")");
      ++pos_;
    }
    std::string_view field = text_.substr(start, pos_ - start);
    // The '\r' of a CRLF line end is not part of the last field.
    if (!field.empty() && field.back() == '\r' && (pos_ >= text_.size() || text_[pos_] == '\n'))
      field.remove_suffix(1);
    out.assign(field);
    return end_of_field(record_line, false);
  }

  /// After a field: consumes the separator and says whether another field follows.
  bool end_of_field(std::uint64_t record_line, bool after_quote) {
    if (pos_ >= text_.size()) return false;
    if (text_[pos_] == ',') {
      ++pos_;
      return true;
    }
    if (after_quote && text_.substr(pos_, 2) == "\r\n") ++pos_;
    if (text_[pos_] == '\n') {
      ++pos_;
      ++line_;
      return false;
    }
    throw DataError(path_, record_line,
                    "unexpected " + quoted(text_.substr(pos_, 1)) +
                        " after a closing quote; expected ',' or the end of the line");
  }

  std::string_view text_;
  const std::string& path_;
  std::size_t pos_ = 0;
  std::uint64_t line_ = 1;
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::int64_t parse_id(std::string_view text, const char* column, const std::string& path,
                      std::uint64_t line) {
  const std::string_view s = trim(text);
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size())
    throw DataError(path, line, std::string(column) + " " + quoted(text) + " is not an integer");
  return v;
}

float parse_rating(std::string_view text, const std::string& path, std::uint64_t line) {
  std::string_view s = trim(text);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v) ||
      !std::isfinite(static_cast<float>(v)))
    throw DataError(path, line, "rating " + quoted(text) + " is not a finite number");
  return static_cast<float>(v);
}

/// Dense indices of `raw` ids: each id's rank among the distinct ids. Fills `ids` (ascending).
std::vector<std::uint32_t> dense_indices(const std::vector<std::int64_t>& raw,
                                         std::vector<std::int64_t>& ids) {
  ids = raw;
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::vector<std::uint32_t> out(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i)
    out[i] = static_cast<std::uint32_t>(std::lower_bound(ids.begin(), ids.end(), raw[i]) - ids.begin());
  return out;
}

/// The ratings at `rows` of `all`, sharing its id maps.
std::shared_ptr<Ratings> subset(const Ratings& all, const std::vector<std::uint32_t>& rows) {
  auto r = std::make_shared<Ratings>();
  r->num_users = all.num_users;
  r->num_items = all.num_items;
  r->user_ids = all.user_ids;
  r->item_ids = all.item_ids;
  r->user.reserve(rows.size());
  r->item.reserve(rows.size());
  r->value.reserve(rows.size());
  for (const auto i : rows) {
    r->user.push_back(all.user[i]);
    r->item.push_back(all.item[i]);
    r->value.push_back(all.value[i]);
  }
  return r;
}

double mean_of(const std::vector<float>& v) {
  double sum = 0.0;
  for (float x : v) sum += x;
  return v.empty() ? 0.0 : sum / static_cast<double>(v.size());
}

Dataset as_dataset(const std::string& source, std::shared_ptr<Ratings> r) {
  Dataset d;
  d.source = source;
  d.rows = r->size();
  d.cols = 0;
  d.ratings = std::move(r);
  return d;
}

}  // namespace

RatingsTable read_ratings_table(const std::string& path) { return parse_ratings_table(read_whole_file(path), path); }

RatingsTable parse_ratings_table(std::string_view text, const std::string& path) {
  CsvRecords records(text, path);
  std::vector<std::string> fields;
  std::uint64_t line = 0;
  if (!records.next(fields, line)) throw DataError(path, 1, "empty file: expected a header line");

  const char* const names[3] = {"userId", "movieId", "rating"};
  std::size_t column[3];
  for (int c = 0; c < 3; ++c) {
    const auto n = std::count(fields.begin(), fields.end(), names[c]);
    if (n == 0) {
      std::string have;
      for (const auto& f : fields) have += (have.empty() ? "" : ", ") + quoted(f);
      throw DataError(path, line, std::string("the header has no column \"") + names[c] +
                                      "\" (it has " + have + ")");
    }
    if (n > 1) throw DataError(path, line, std::string("the header names \"") + names[c] + "\" twice");
    column[c] = static_cast<std::size_t>(std::find(fields.begin(), fields.end(), names[c]) - fields.begin());
  }
  const std::size_t width = fields.size();

  std::vector<std::int64_t> users, items;
  RatingsTable table;
  table.source = path;
  Ratings& all = table.all;
  while (records.next(fields, line)) {
    if (fields.size() != width)
      throw DataError(path, line, "expected " + count_text(width, "field") + " as in the header, got " +
                                      std::to_string(fields.size()));
    users.push_back(parse_id(fields[column[0]], "userId", path, line));
    items.push_back(parse_id(fields[column[1]], "movieId", path, line));
    all.value.push_back(parse_rating(fields[column[2]], path, line));
  }
  if (all.value.empty()) throw DataError(path, line, "no ratings after the header");
  if (all.value.size() > 0xffffffffULL) throw DataError(path, line, "more than 2^32 ratings");
  all.user = dense_indices(users, all.user_ids);
  all.item = dense_indices(items, all.item_ids);
  all.num_users = all.user_ids.size();
  all.num_items = all.item_ids.size();
  all.train_mean = mean_of(all.value);
  return table;
}


std::size_t test_split_size(std::size_t n, double test_fraction, const std::string& source) {
  if (!(test_fraction > 0.0 && test_fraction < 1.0))
    throw std::invalid_argument("test_fraction must be in (0, 1), got " + std::to_string(test_fraction));
  const auto n_test = static_cast<std::size_t>(std::llround(test_fraction * static_cast<double>(n)));
  if (n_test == 0 || n_test == n)
    throw DataError(source, 0,
                    count_text(n, "rating") + " cannot be split with test_fraction " +
                        std::to_string(test_fraction) + ": a split would be empty");
  return n_test;
}

RatingsSplit split_ratings(const RatingsTable& table, double test_fraction, std::uint64_t seed) {
  const std::size_t n = table.all.size();
  const std::size_t n_test = test_split_size(n, test_fraction, table.source);
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  Rng rng(seed);
  for (std::size_t i = n; i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
  std::vector<std::uint32_t> test(order.begin(), order.begin() + static_cast<long>(n_test));
  std::vector<std::uint32_t> train(order.begin() + static_cast<long>(n_test), order.end());
  std::sort(test.begin(), test.end());
  std::sort(train.begin(), train.end());

  auto train_r = subset(table.all, train);
  auto test_r = subset(table.all, test);
  train_r->train_mean = test_r->train_mean = mean_of(train_r->value);
  return RatingsSplit{as_dataset(table.source, std::move(train_r)),
                      as_dataset(table.source, std::move(test_r))};
}

RatingsSplit read_ratings(const std::string& path, double test_fraction, std::uint64_t seed) {
  return split_ratings(read_ratings_table(path), test_fraction, seed);
}

}  // namespace pstwin
