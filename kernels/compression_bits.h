// The bit-level conversions shared by the CPU compressors (kernels/cpu/compressors.cc) and their
// CUDA twins (kernels/cuda/compress_kernels.cu): one definition, compiled for the host and the
// device alike, is what makes the two produce the same bytes. Internal to kernels/.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define PSTWIN_HOST_DEVICE __host__ __device__
#else
#define PSTWIN_HOST_DEVICE
#endif

namespace pstwin::compression_bits {

PSTWIN_HOST_DEVICE inline std::uint32_t bits_of(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  return x;
}

PSTWIN_HOST_DEVICE inline float float_of(std::uint32_t x) {
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

/// IEEE half bits of f, round to nearest even; finite values past +-65504 saturate to it.
PSTWIN_HOST_DEVICE inline std::uint16_t fp16_of(float f) {
  const std::uint32_t x = bits_of(f);
  const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  const std::uint32_t ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return sign | 0x7e00u;   // NaN (quiet)
  if (ax == 0x7f800000u) return sign | 0x7c00u;  // infinity
  if (ax >= 0x477fe000u) return sign | 0x7bffu;  // >= 65504: saturate
  if (ax < 0x38800000u) {                        // below 2^-14: a subnormal half
    const std::uint32_t exp = ax >> 23;
    if (exp < 102) return sign;                  // below 2^-25: rounds to zero
    const std::uint32_t mant = (ax & 0x7fffffu) | 0x800000u;
    const std::uint32_t shift = 126 - exp;       // in units of 2^-24
    std::uint32_t h = mant >> shift;
    const std::uint32_t rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1u))) ++h;
    return static_cast<std::uint16_t>(sign | h);
  }
  std::uint32_t h = (((ax >> 23) - 112) << 10) | ((ax & 0x7fffffu) >> 13);
  const std::uint32_t rem = ax & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // a carry moves into the exponent
  return static_cast<std::uint16_t>(sign | h);
}

/// The float of IEEE half bits h (exact).
PSTWIN_HOST_DEVICE inline float float_of_fp16(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  if (exp == 0) {
    const float v = static_cast<float>(mant) * 0x1p-24f;  // exact: mant < 2^10
    return sign ? -v : v;
  }
  if (exp == 31) return float_of(sign | 0x7f800000u | (mant << 13));
  return float_of(sign | ((exp + 112) << 23) | (mant << 13));
}

/// bfloat16 bits of f, round to nearest even (NaN stays a quiet NaN).
PSTWIN_HOST_DEVICE inline std::uint16_t bf16_of(float f) {
  const std::uint32_t x = bits_of(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);
  return static_cast<std::uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

/// A uniform number in [0, 1) with 24 random bits, from (seed, i): SplitMix64's finaliser, so
/// each index draws independently of the order values are visited in (int8's rounding).
PSTWIN_HOST_DEVICE inline float uniform01(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<float>(z >> 40) * 0x1.0p-24f;
}

}  // namespace pstwin::compression_bits
