// read_libsvm: LIBSVM / SVMlight text into a CSR Dataset.
//
// The whole file is read into memory and parsed in place with std::from_chars (no streams, no
// locale, no per-token allocation): a9a's 32k rows parse in milliseconds.
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>

#include "runtime/data/dataset.h"
#include "runtime/data/read_file.h"
#include "runtime/errors.h"

namespace pstwin {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/// Quotes a token for a message, cut short so a binary file does not flood the terminal.
std::string quoted(std::string_view tok) {
  constexpr std::size_t kMax = 40;
  if (tok.size() <= kMax) return "'" + std::string(tok) + "'";
  return "'" + std::string(tok.substr(0, kMax)) + "...'";
}

/// Parses all of `s` as a number; from_chars rejects a leading '+', which LIBSVM files use.
template <typename T>
bool parse_number(std::string_view s, T& out) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

/// The label of a label token as written: -1 or a non-negative integer below 2^31 - 1.
std::int32_t parse_label(std::string_view tok, const std::string& path, std::uint64_t line) {
  double d = 0;
  if (!parse_number(tok, d)) {
    if (tok.find(':') != std::string_view::npos) {
      throw DataError(path, line, "line starts with " + quoted(tok) + "; expected a label first");
    }
    throw DataError(path, line, "label " + quoted(tok) + " is not a number");
  }
  if (!std::isfinite(d) || d != std::floor(d)) {
    throw DataError(path, line, "label " + quoted(tok) + " is not an integer");
  }
  if (d == -1) return -1;
  if (d < 0) {
    throw DataError(path, line,
                    "label " + quoted(tok) + " is negative; only -1 (class 0) is allowed");
  }
  // Leave room for num_classes = max + 1 in an int32.
  if (d >= static_cast<double>(std::numeric_limits<std::int32_t>::max())) {
    throw DataError(path, line, "label " + quoted(tok) + " is too large");
  }
  return static_cast<std::int32_t>(d);
}

/// SVMlight's "qid:N" (a query id of ranking data): N a non-negative integer. Not a feature.
bool is_qid(std::string_view tok, const std::string& path, std::uint64_t line) {
  if (tok.substr(0, 4) != "qid:") return false;
  std::uint64_t id = 0;
  const std::string_view digits = tok.substr(4);
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size())
    throw DataError(path, line, "expected qid:<non-negative integer>, got " + quoted(tok));
  return true;
}

/// Records `label` in ds.labels_seen when it is not in `known` yet (the labels seen so far);
/// -1 and 0 may not both appear (both would be class 0, so a file with the three classes -1, 0
/// and 1 would silently become binary).
void note_label(Dataset& ds, std::unordered_set<std::int32_t>& known, std::int32_t label, std::uint64_t line,
                const std::string& path) {
  if (!known.insert(label).second) return;
  if (label == -1 || label == 0) {
    for (const LabelSeen& seen : ds.labels_seen)
      if (seen.label == -1 - label)
        throw DataError(path, line,
                        "label " + std::to_string(label) + " after label " + std::to_string(seen.label) +
                            " on line " + std::to_string(seen.line) +
                            ": -1 (of the -1/+1 convention) and 0 (of the 0/1 convention) would both be class 0; "
                            "use one convention, or 0, 1, 2, ... for more than two classes");
  }
  ds.labels_seen.push_back(LabelSeen{label, line});
}

}  // namespace

Dataset read_libsvm(const std::string& path) { return parse_libsvm(read_whole_file(path), path); }

Dataset parse_libsvm(std::string_view text, const std::string& path) {
  Dataset ds;
  ds.source = path;
  ds.labels_file = path;
  ds.sparse = true;

  // One cheap pass to size the arrays: every feature has one ':' and every row one '\n' (at most).
  const auto colons = static_cast<std::size_t>(std::count(text.begin(), text.end(), ':'));
  const auto newlines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  ds.col_idx.reserve(colons);
  ds.values.reserve(colons);
  ds.labels.reserve(newlines + 1);
  ds.row_ptr.reserve(newlines + 2);
  ds.row_ptr.push_back(0);

  const char* p = text.data();
  const char* const file_end = p + text.size();
  if (text.size() >= 3 && std::memcmp(p, "\xEF\xBB\xBF", 3) == 0) p += 3;  // UTF-8 BOM

  std::uint64_t line = 0;
  std::unordered_set<std::int32_t> known_labels;
  std::uint64_t max_index = 0;
  std::int32_t max_class = -1;
  while (p < file_end) {
    ++line;
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', file_end - p));
    const char* end = nl ? nl : file_end;
    const char* next_line = nl ? nl + 1 : file_end;
    // A comment runs to the end of the line; '\r' of CRLF is whitespace below.
    if (const void* hash = std::memchr(p, '#', end - p)) end = static_cast<const char*>(hash);

    auto next_token = [&]() -> std::string_view {
      while (p < end && is_space(*p)) ++p;
      const char* start = p;
      while (p < end && !is_space(*p)) ++p;
      return {start, static_cast<std::size_t>(p - start)};
    };

    std::string_view tok = next_token();
    if (tok.empty()) {  // blank or comment-only line
      p = next_line;
      continue;
    }
    const std::int32_t label = parse_label(tok, path, line);
    note_label(ds, known_labels, label, line, path);
    const std::int32_t cls = label == -1 ? 0 : label;

    std::uint64_t prev_index = 0;
    tok = next_token();
    if (is_qid(tok, path, line)) tok = next_token();  // a ranking file's query id: skipped
    for (; !tok.empty(); tok = next_token()) {
      const std::size_t colon = tok.find(':');
      if (colon == std::string_view::npos || colon == 0 || colon + 1 == tok.size()) {
        throw DataError(path, line, "expected index:value, got " + quoted(tok));
      }
      const std::string_view index_text = tok.substr(0, colon);
      const std::string_view value_text = tok.substr(colon + 1);

      std::uint64_t index = 0;
      auto [iend, iec] =
          std::from_chars(index_text.data(), index_text.data() + index_text.size(), index);
      if (iec == std::errc::result_out_of_range ||
          (iec == std::errc() && index > std::numeric_limits<std::uint32_t>::max())) {
        throw DataError(path, line, "index " + quoted(index_text) + " is too large");
      }
      if (iec != std::errc() || iend != index_text.data() + index_text.size()) {
        throw DataError(path, line,
                        "expected index:value with an integer index, got " + quoted(tok));
      }
      if (index == 0) {
        throw DataError(path, line, "index 0 in " + quoted(tok) + "; indices are 1-based");
      }
      if (index <= prev_index) {
        throw DataError(path, line,
                        "index " + std::to_string(index) + " not greater than previous index " +
                            std::to_string(prev_index));
      }
      float value = 0;
      // Overflow (1e99 as a float) fails to parse and is reported the same as "abc" or "nan".
      if (!parse_number(value_text, value) || !std::isfinite(value)) {
        throw DataError(path, line,
                        "value " + quoted(value_text) + " of index " + std::to_string(index) +
                            " is not a finite number");
      }
      prev_index = index;
      ds.col_idx.push_back(static_cast<std::uint32_t>(index - 1));
      ds.values.push_back(value);  // explicit zeros are kept: they fix cols (a9a.t's "123:0")
    }

    max_index = std::max(max_index, prev_index);
    max_class = std::max(max_class, cls);
    ds.labels.push_back(cls);
    ds.row_ptr.push_back(ds.values.size());
    p = next_line;
  }

  if (ds.labels.empty()) {
    throw DataError(path, 0, "no examples (the file is empty or holds only comments)");
  }
  ds.rows = ds.labels.size();
  ds.cols = static_cast<std::size_t>(max_index);
  ds.num_classes = static_cast<std::size_t>(max_class) + 1;
  ds.labels01.assign(ds.labels.begin(), ds.labels.end());
  return ds;
}


}  // namespace pstwin
