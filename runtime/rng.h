// Rng: the only source of randomness a role may use (DESIGN.md, rule 2).
#pragma once

#include <cstdint>
#include <random>

namespace pstwin {

/// A seeded 64-bit Mersenne Twister with distributions implemented here (not <random>'s, whose
/// output is implementation-defined), so a seed gives the same stream on every platform.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : engine_(seed) {}

  /// Seed for stream `stream` of node `node` under scenario seed `seed` (SplitMix64 mixing,
  /// Steele et al. 2014), so nodes and purposes get independent streams.
  static std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t node, std::uint64_t stream);

  std::uint64_t next_u64() { return engine_(); }
  /// Uniform in [0, 1), 53 bits.
  double uniform();
  /// Uniform integer in [0, n), n > 0 (rejection sampling, unbiased).
  std::uint64_t below(std::uint64_t n);
  /// Standard normal (Box-Muller). |normal()| <= kNormalMax.
  double normal();

  /// The largest |normal()|: sqrt(-2 ln u1) with u1 >= 2^-53 is at most sqrt(106 ln 2) =
  /// 8.5716743..., rounded up. Scenario checks use it to bound what a draw can scale.
  static constexpr double kNormalMax = 8.5717;

 private:
  std::mt19937_64 engine_;
};

}  // namespace pstwin
