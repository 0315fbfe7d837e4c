// How far apart two names are, for "did you mean ...?" advice (a misspelt scenario key or
// PSTWIN_ variable), and how far counts as a typo.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace pstwin {

/// Edit distance between `a` and `b`: the fewest single-byte insertions, deletions,
/// substitutions and swaps of two neighbouring bytes that turn one into the other, no byte
/// edited twice (Levenshtein's distance, V. I. Levenshtein 1966, with Damerau's transposition,
/// F. J. Damerau 1964: the "optimal string alignment" form). A swap counts 1 because swapped
/// letters are a common slip ("ROEL" for "ROLE"). Computed three rows of the |a| x |b| table at a
/// time (O(|a| |b|) time, O(|b|) memory). Throws nothing but std::bad_alloc.
inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> before(b.size() + 1), above(b.size() + 1), row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) above[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      row[j] = std::min({above[j] + 1, row[j - 1] + 1, above[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) row[j] = std::min(row[j], before[j - 2] + 1);
    }
    std::swap(before, above);
    std::swap(above, row);
  }
  return above[b.size()];
}

/// The largest edit distance at which a name of `length` letters is taken for a typo of
/// another: a third of its letters, and at least 1. Past it, advice would guess ("JOBS" is no
/// typo of "JOIN"). Used by every "did you mean" so that they agree.
inline std::size_t typo_limit(std::size_t length) { return std::max<std::size_t>(1, length / 3); }

/// " (did you mean "learning_rate"?)" for the name in `names` closest to `name`, when it is a
/// typo away (typo_limit); else "". The first of equally close names wins. Every unknown-key
/// error gives it, at any depth, so that the same slip gets the same advice everywhere.
template <typename Names>
std::string did_you_mean(std::string_view name, const Names& names) {
  std::string_view best;
  std::size_t best_distance = typo_limit(name.size()) + 1;
  for (const auto& n : names)
    if (const std::size_t d = edit_distance(name, n); d < best_distance) best = n, best_distance = d;
  return best_distance <= typo_limit(name.size()) ? " (did you mean \"" + std::string(best) + "\"?)" : "";
}

}  // namespace pstwin
