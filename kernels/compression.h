// Gradient and parameter compressors (DESIGN.md, "Compression"): pure functions from a float span
// to the bytes that travel and back, each returning its Cost like every kernel. Deterministic: the
// same input and seed give the same bytes on every machine and in every environment, which keeps
// BSP results identical across simulate, launch --transport inproc and ZeroMQ.
//
// Packed layouts (n values, blocks of kCompressBlock values, B = ceil(n / kCompressBlock) blocks,
// all integers and floats little-endian):
//   fp16    n x u16 IEEE half, round to nearest even; finite values beyond +-65504 saturate to
//           +-65504 (infinities and NaN stay what they are)                     2n bytes
//   bf16    n x u16, the upper half of the float32, round to nearest even      2n bytes
//   int8    B x f32 scale (max |x| of the block / 127), then n x i8 in [-127, 127]; a value is
//           x / scale rounded stochastically (up with probability equal to the fraction), the
//           random numbers drawn from (seed, index)                              4B + n bytes
//   onebit  B x f32 scale (mean |x| of the block), then ceil(n / 8) bytes of signs, bit i % 8 of
//           byte i / 8 set when x_i >= 0 (padding bits 0); decodes to +-scale    4B + ceil(n/8)
//   topk    u32 k, then k x u32 indices (strictly increasing, < n), then k x f32 values; the k
//           largest |x| (ties: lower index first), zeros elsewhere             4 + 8k bytes
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/cost.h"

namespace pstwin {

/// How values travel. Values are part of the wire format (codec.h, byte 76): never renumber.
enum class ValueFormat : std::uint8_t {
  kFloat32 = 0,  ///< uncompressed ("none")
  kFp16 = 1,
  kBf16 = 2,
  kInt8 = 3,
  kOneBit = 4,
  kTopK = 5,
};

/// Largest valid ValueFormat value, for decoders.
inline constexpr std::uint8_t kMaxValueFormat = 5;

/// Values per block of int8 and onebit (each block has its own scale).
inline constexpr std::size_t kCompressBlock = 256;

/// The scenario's name of a format: "none", "fp16", "bf16", "int8", "onebit", "topk".
std::string_view value_format_name(ValueFormat f);

/// What to compress with. `seed` drives int8's stochastic rounding (the caller derives it from the
/// scenario seed, the node, the clock and the key range); `topk_ratio` in (0, 1] is topk's share.
struct CompressParams {
  ValueFormat format = ValueFormat::kFloat32;
  double topk_ratio = 0.01;
  std::uint64_t seed = 0;
};

/// topk's k for n values: ceil(ratio * n), at least 1 when n > 0, at most n.
std::size_t topk_count(std::size_t n, double ratio);

/// The exact size in bytes of n values packed as p.format (layouts above; kFloat32: 4n).
std::size_t packed_bytes(const CompressParams& p, std::size_t n);

/// Packs x[0..n) as p.format into `out` (resized to packed_bytes(p, n)).
/// Cost: flops ~2n (4n for int8's rounding); bytes 4n read plus the packed size written.
Cost compress(const CompressParams& p, const float* x, std::size_t n, std::vector<std::uint8_t>& out);

/// Unpacks `size` bytes of format f into y[0..n) (overwritten). Throws std::invalid_argument
/// naming the problem when the bytes are not a valid packing of n values (packed_problem).
/// Cost: n flops; bytes: the packed size read plus 4n written.
Cost decompress(ValueFormat f, const std::uint8_t* bytes, std::size_t size, std::size_t n, float* y);

/// What makes `size` bytes an invalid packing of n values in format f (a wrong size, an int8 of
/// -128, nonzero padding bits, topk's k > n or indices not strictly increasing below n); empty
/// when they are valid. For decoders of untrusted input (runtime/codec_decode.cc).
std::string packed_problem(ValueFormat f, const std::uint8_t* bytes, std::size_t size, std::size_t n);

/// Error feedback (Seide et al. 2014; Lin et al. 2018): v = g + residual is packed into `out`, and
/// residual becomes v - unpack(out), what this message did not carry. g and residual have n floats
/// (residual starts at zeros); g is left unchanged.
/// Cost: compress + decompress + 2n flops, 12n bytes for the two element-wise passes.
Cost compress_with_feedback(const CompressParams& p, const float* g, float* residual, std::size_t n,
                            std::vector<std::uint8_t>& out);

/// Scales x[0..n) in place by min(1, max_norm / ||x||_2) (norm summed in double, in order).
/// REQUIRES max_norm > 0. Cost: 3n flops, 8n bytes.
Cost clip_global_norm(float* x, std::size_t n, float max_norm);

/// Clamps x[0..n) in place to [-limit, limit]. REQUIRES limit > 0. Cost: 2n flops, 8n bytes.
Cost clip_by_value(float* x, std::size_t n, float limit);

/// IEEE half (bits) of f, rounded to nearest even, saturating as fp16 packing does.
std::uint16_t float_to_fp16(float f);
/// The float value of IEEE half bits h (exact).
float fp16_to_float(std::uint16_t h);
/// bfloat16 (bits) of f, rounded to nearest even.
std::uint16_t float_to_bf16(float f);
/// The float value of bfloat16 bits h (exact).
float bf16_to_float(std::uint16_t h);

}  // namespace pstwin
