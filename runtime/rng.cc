#include "runtime/rng.h"

#include <cmath>
#include <numbers>

namespace pstwin {

std::uint64_t Rng::derive_seed(std::uint64_t seed, std::uint64_t node, std::uint64_t stream) {
  auto mix = [](std::uint64_t z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  };
  return mix(mix(mix(seed) ^ node) ^ stream);
}

double Rng::uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

std::uint64_t Rng::below(std::uint64_t n) {
  const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % n);
  std::uint64_t r;
  do r = engine_();
  while (r >= limit);
  return r % n;
}

double Rng::normal() {
  double u1 = uniform();
  while (u1 <= 0.0) u1 = uniform();
  const double u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

}  // namespace pstwin
