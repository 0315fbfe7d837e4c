// How far apart two names are, for "did you mean ...?" advice (a misspelt scenario key or
// PSTWIN_ variable).
#pragma once

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <vector>

namespace pstwin {

/// Levenshtein distance between `a` and `b`: the fewest single-byte insertions, deletions and
/// substitutions that turn one into the other (V. I. Levenshtein, 1966), computed one row of the
/// |a| x |b| table at a time (O(|a| |b|) time, O(|b|) memory). Throws nothing but std::bad_alloc.
inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];  // the distance of a[0, i-1) to b[0, j-1)
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace pstwin
