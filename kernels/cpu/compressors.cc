// The CPU compressors (layouts in kernels/compression.h). Sequential and in index order, so the
// bytes are the same on every machine; the CUDA twins (kernels/cuda/compress_kernels.cu) follow the
// same arithmetic.
#include "kernels/compression.h"
#include "kernels/compression_bits.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace pstwin {
namespace {

void put_u32(std::uint8_t* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
std::uint32_t get_u32(const std::uint8_t* p) {
  return std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 | std::uint32_t{p[3]} << 24;
}
void put_f32(std::uint8_t* p, float v) { put_u32(p, std::bit_cast<std::uint32_t>(v)); }
float get_f32(const std::uint8_t* p) { return std::bit_cast<float>(get_u32(p)); }

std::size_t blocks_of(std::size_t n) { return (n + kCompressBlock - 1) / kCompressBlock; }

/// The magnitude topk ranks by: NaN ranks above everything, so it is sent rather than hidden.
float rank_of(float v) { return std::isnan(v) ? INFINITY : std::fabs(v); }

/// fp16 or bf16: two little-endian bytes a value (a template, so the conversion inlines).
template <std::uint16_t (*Half)(float)>
void pack_halves(const float* x, std::size_t n, std::uint8_t* out) {
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint16_t h = Half(x[i]);
    out[2 * i] = static_cast<std::uint8_t>(h);
    out[2 * i + 1] = static_cast<std::uint8_t>(h >> 8);
  }
}

void pack_int8(const CompressParams& p, const float* x, std::size_t n, std::uint8_t* out) {
  const std::size_t nb = blocks_of(n);
  std::uint8_t* q = out + 4 * nb;
  for (std::size_t b = 0; b < nb; ++b) {
    const std::size_t lo = b * kCompressBlock, hi = std::min(n, lo + kCompressBlock);
    float amax = 0.0f;
    for (std::size_t i = lo; i < hi; ++i) amax = std::isnan(x[i]) ? x[i] : std::max(amax, std::fabs(x[i]));
    const float scale = amax / 127.0f;
    put_f32(out + 4 * b, scale);
    for (std::size_t i = lo; i < hi; ++i) {
      std::int32_t v = 0;
      // A zero or non-finite scale sends zeros; a non-finite scale then decodes to NaN, so a
      // diverged gradient is not silently hidden.
      if (scale > 0.0f && std::isfinite(scale)) {
        const float t = x[i] / scale;
        const float fl = std::floor(t);
        v = static_cast<std::int32_t>(fl) + (compression_bits::uniform01(p.seed, i) < t - fl ? 1 : 0);
        v = std::clamp(v, -127, 127);
      }
      q[i] = static_cast<std::uint8_t>(static_cast<std::int8_t>(v));
    }
  }
}

void pack_onebit(const float* x, std::size_t n, std::uint8_t* out) {
  const std::size_t nb = blocks_of(n);
  std::uint8_t* bits = out + 4 * nb;
  std::fill(bits, bits + (n + 7) / 8, std::uint8_t{0});
  for (std::size_t b = 0; b < nb; ++b) {
    const std::size_t lo = b * kCompressBlock, hi = std::min(n, lo + kCompressBlock);
    double sum = 0.0;
    for (std::size_t i = lo; i < hi; ++i) sum += std::fabs(static_cast<double>(x[i]));
    put_f32(out + 4 * b, static_cast<float>(sum / static_cast<double>(hi - lo)));
    for (std::size_t i = lo; i < hi; ++i)
      if (x[i] >= 0.0f) bits[i / 8] |= static_cast<std::uint8_t>(1u << (i % 8));
  }
}

void pack_topk(const CompressParams& p, const float* x, std::size_t n, std::uint8_t* out) {
  const std::size_t k = topk_count(n, p.topk_ratio);
  std::vector<std::uint32_t> idx(n);
  std::iota(idx.begin(), idx.end(), 0u);
  const auto larger = [x](std::uint32_t a, std::uint32_t b) {
    const float ra = rank_of(x[a]), rb = rank_of(x[b]);
    return ra > rb || (ra == rb && a < b);
  };
  std::nth_element(idx.begin(), idx.begin() + static_cast<long>(k), idx.end(), larger);
  std::sort(idx.begin(), idx.begin() + static_cast<long>(k));
  put_u32(out, static_cast<std::uint32_t>(k));
  for (std::size_t j = 0; j < k; ++j) {
    put_u32(out + 4 + 4 * j, idx[j]);
    put_f32(out + 4 + 4 * k + 4 * j, x[idx[j]]);
  }
}

std::string size_problem(std::size_t size, std::size_t expected, ValueFormat f, std::size_t n) {
  if (size == expected) return {};
  return std::string(value_format_name(f)) + " packing of " + std::to_string(n) + " values has " +
         std::to_string(size) + " bytes, expected " + std::to_string(expected);
}

}  // namespace

std::string_view value_format_name(ValueFormat f) {
  switch (f) {
    case ValueFormat::kFloat32: return "none";
    case ValueFormat::kFp16: return "fp16";
    case ValueFormat::kBf16: return "bf16";
    case ValueFormat::kInt8: return "int8";
    case ValueFormat::kOneBit: return "onebit";
    case ValueFormat::kTopK: return "topk";
  }
  return "unknown";
}

std::size_t topk_count(std::size_t n, double ratio) {
  if (n == 0) return 0;
  const double k = std::ceil(ratio * static_cast<double>(n));
  return std::clamp<std::size_t>(k >= static_cast<double>(n) ? n : static_cast<std::size_t>(k), 1, n);
}

std::size_t packed_bytes(const CompressParams& p, std::size_t n) {
  switch (p.format) {
    case ValueFormat::kFloat32: return 4 * n;
    case ValueFormat::kFp16:
    case ValueFormat::kBf16: return 2 * n;
    case ValueFormat::kInt8: return 4 * blocks_of(n) + n;
    case ValueFormat::kOneBit: return 4 * blocks_of(n) + (n + 7) / 8;
    case ValueFormat::kTopK: return 4 + 8 * topk_count(n, p.topk_ratio);
  }
  throw std::invalid_argument("packed_bytes: unknown value format");
}

std::uint16_t float_to_fp16(float f) { return compression_bits::fp16_of(f); }
float fp16_to_float(std::uint16_t h) { return compression_bits::float_of_fp16(h); }
std::uint16_t float_to_bf16(float f) { return compression_bits::bf16_of(f); }
float bf16_to_float(std::uint16_t h) { return std::bit_cast<float>(std::uint32_t{h} << 16); }

Cost compress(const CompressParams& p, const float* x, std::size_t n, std::vector<std::uint8_t>& out) {
  const double dn = static_cast<double>(n);
  out.assign(packed_bytes(p, n), 0);
  std::uint8_t* o = out.data();
  double flops = 2 * dn;
  switch (p.format) {
    case ValueFormat::kFloat32:
      for (std::size_t i = 0; i < n; ++i) put_f32(o + 4 * i, x[i]);
      flops = 0;
      break;
    case ValueFormat::kFp16: pack_halves<compression_bits::fp16_of>(x, n, o); break;
    case ValueFormat::kBf16: pack_halves<compression_bits::bf16_of>(x, n, o); break;
    case ValueFormat::kInt8:
      pack_int8(p, x, n, o);
      flops = 4 * dn;
      break;
    case ValueFormat::kOneBit: pack_onebit(x, n, o); break;
    case ValueFormat::kTopK: pack_topk(p, x, n, o); break;
  }
  return Cost{flops, 4 * dn + static_cast<double>(out.size())};
}

std::string packed_problem(ValueFormat f, const std::uint8_t* bytes, std::size_t size, std::size_t n) {
  if (static_cast<std::uint8_t>(f) > kMaxValueFormat)
    return "unknown value format " + std::to_string(static_cast<unsigned>(f));
  if (f == ValueFormat::kTopK) {
    if (size < 4) return "topk packing of " + std::to_string(size) + " bytes, less than its 4-byte count";
    const std::uint64_t k = get_u32(bytes);
    if (k > n) return "topk packing says k = " + std::to_string(k) + " of " + std::to_string(n) + " values";
    if (auto p = size_problem(size, 4 + 8 * k, f, n); !p.empty()) return p;
    for (std::uint64_t j = 0; j < k; ++j) {
      const std::uint32_t i = get_u32(bytes + 4 + 4 * j);
      if (i >= n) return "topk index " + std::to_string(i) + " is not below " + std::to_string(n);
      if (j > 0 && i <= get_u32(bytes + 4 * j))
        return "topk indices not strictly increasing at entry " + std::to_string(j);
    }
    return {};
  }
  if (auto p = size_problem(size, packed_bytes(CompressParams{.format = f}, n), f, n); !p.empty()) return p;
  const std::size_t head = 4 * blocks_of(n);
  if (f == ValueFormat::kInt8) {
    for (std::size_t i = 0; i < n; ++i)
      if (bytes[head + i] == 0x80u) return "int8 value " + std::to_string(i) + " is -128 (valid: -127..127)";
  } else if (f == ValueFormat::kOneBit && n % 8 != 0) {
    if (bytes[size - 1] >> (n % 8)) return "onebit padding bits after value " + std::to_string(n) + " are not 0";
  }
  return {};
}

Cost decompress(ValueFormat f, const std::uint8_t* bytes, std::size_t size, std::size_t n, float* y) {
  if (auto problem = packed_problem(f, bytes, size, n); !problem.empty())
    throw std::invalid_argument("decompress: " + problem);
  const std::size_t head = 4 * blocks_of(n);
  switch (f) {
    case ValueFormat::kFloat32:
      for (std::size_t i = 0; i < n; ++i) y[i] = get_f32(bytes + 4 * i);
      break;
    case ValueFormat::kFp16:
      for (std::size_t i = 0; i < n; ++i)
        y[i] = fp16_to_float(static_cast<std::uint16_t>(bytes[2 * i] | bytes[2 * i + 1] << 8));
      break;
    case ValueFormat::kBf16:
      for (std::size_t i = 0; i < n; ++i)
        y[i] = bf16_to_float(static_cast<std::uint16_t>(bytes[2 * i] | bytes[2 * i + 1] << 8));
      break;
    case ValueFormat::kInt8:
    case ValueFormat::kOneBit:
      // Block by block, so each scale is read once and the inner loop vectorises.
      for (std::size_t lo = 0; lo < n; lo += kCompressBlock) {
        const std::size_t hi = std::min(n, lo + kCompressBlock);
        const float s = get_f32(bytes + 4 * (lo / kCompressBlock));
        if (f == ValueFormat::kInt8) {
          for (std::size_t i = lo; i < hi; ++i) y[i] = static_cast<float>(static_cast<std::int8_t>(bytes[head + i])) * s;
        } else {
          // -s is s with its sign bit flipped: set the sign where the bit is 0.
          const std::uint32_t sb = std::bit_cast<std::uint32_t>(s);
          for (std::size_t i = lo; i < hi; ++i)
            y[i] = std::bit_cast<float>(sb ^ ((~(bytes[head + i / 8] >> (i % 8)) & 1u) << 31));
        }
      }
      break;
    case ValueFormat::kTopK: {
      std::fill(y, y + n, 0.0f);
      const std::size_t k = get_u32(bytes);
      for (std::size_t j = 0; j < k; ++j) y[get_u32(bytes + 4 + 4 * j)] = get_f32(bytes + 4 + 4 * k + 4 * j);
      break;
    }
  }
  return Cost{static_cast<double>(n), static_cast<double>(size) + 4.0 * static_cast<double>(n)};
}

Cost compress_with_feedback(const CompressParams& p, const float* g, float* residual, std::size_t n,
                            std::vector<std::uint8_t>& out) {
  std::vector<float> v(n), sent(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = g[i] + residual[i];
  Cost c = compress(p, v.data(), n, out);
  c += decompress(p.format, out.data(), out.size(), n, sent.data());
  for (std::size_t i = 0; i < n; ++i) residual[i] = v[i] - sent[i];
  return c + Cost{2.0 * static_cast<double>(n), 12.0 * static_cast<double>(n)};
}

Cost clip_global_norm(float* x, std::size_t n, float max_norm) {
  double sq = 0.0;
  for (std::size_t i = 0; i < n; ++i) sq += static_cast<double>(x[i]) * x[i];
  const double norm = std::sqrt(sq);
  if (norm > max_norm) {
    const float s = static_cast<float>(max_norm / norm);
    for (std::size_t i = 0; i < n; ++i) x[i] *= s;
  }
  return Cost{3.0 * static_cast<double>(n), 8.0 * static_cast<double>(n)};
}

Cost clip_by_value(float* x, std::size_t n, float limit) {
  for (std::size_t i = 0; i < n; ++i) x[i] = std::clamp(x[i], -limit, limit);
  return Cost{2.0 * static_cast<double>(n), 8.0 * static_cast<double>(n)};
}

}  // namespace pstwin
