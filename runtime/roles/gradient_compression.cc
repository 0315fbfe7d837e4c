#include "runtime/roles/gradient_compression.h"

#include <stdexcept>
#include <string>

#include "runtime/errors.h"

namespace pstwin {

namespace {

std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

CompressParams params_of(const CompressionDirection& d, std::uint64_t seed) {
  return CompressParams{.format = d.format, .topk_ratio = d.topk_ratio, .seed = seed};
}

}  // namespace

std::uint64_t packing_seed(std::uint64_t scenario_seed, NodeId sender, std::int64_t clock, std::uint32_t range,
                           bool pull) {
  std::uint64_t h = mix(scenario_seed + 0x9E3779B97F4A7C15ull);
  h = mix(h ^ sender);
  h = mix(h ^ static_cast<std::uint64_t>(clock));
  h = mix(h ^ range);
  return mix(h ^ (pull ? 1u : 0u));
}

Cost pack_values(Message& msg, const CompressionDirection& d, std::uint64_t seed) {
  if (d.format == ValueFormat::kFloat32 || msg.virtual_values > 0) return {};
  const Cost c = compress(params_of(d, seed), msg.values.data(), msg.values.size(), msg.packed);
  msg.value_format = d.format;
  msg.packed_count = msg.values.size();
  msg.values = {};
  return c;
}

Cost unpack_values(Message& msg) {
  if (msg.value_format == ValueFormat::kFloat32) return {};
  msg.values.resize(msg.packed_count);
  Cost c;
  try {
    c = decompress(msg.value_format, msg.packed.data(), msg.packed.size(), msg.packed_count, msg.values.data());
  } catch (const std::invalid_argument& e) {
    throw ProtocolError(std::string(msg_type_name(msg.header.type)) + " from node " +
                        std::to_string(msg.header.sender) + ": " + e.what());
  }
  msg.value_format = ValueFormat::kFloat32;
  msg.packed_count = 0;
  msg.packed = {};
  return c;
}

Cost GradientCompressor::clip(std::vector<float>& grad) const {
  const auto t = static_cast<float>(config_.clip_threshold);
  switch (config_.clip) {
    case CompressionConfig::Clip::kNone: return {};
    case CompressionConfig::Clip::kGlobalNorm: return clip_global_norm(grad.data(), grad.size(), t);
    case CompressionConfig::Clip::kValue: return clip_by_value(grad.data(), grad.size(), t);
  }
  return {};
}

Cost GradientCompressor::pack_push(Message& m, std::size_t width) {
  const CompressionDirection& d = config_.push;
  const std::uint64_t seed = packing_seed(config_.seed, self_, m.header.clock, m.header.range, false);
  if (!d.error_feedback) return pack_values(m, d, seed);
  const std::size_t n = m.values.size();
  std::vector<float> residual;
  const bool keyed = (m.header.flags & msg_flags::kKeyed) != 0;
  if (keyed) {
    // Gather the keys' rows (zeros for a key never pushed), then scatter them back.
    residual.assign(n, 0.0f);
    for (std::size_t j = 0; j < m.keys.size(); ++j)
      if (auto it = by_key_.find(m.keys[j]); it != by_key_.end())
        std::copy(it->second.begin(), it->second.end(), residual.begin() + static_cast<long>(j * width));
  } else {
    residual = std::move(by_range_[m.header.range]);
    residual.resize(n, 0.0f);
  }
  Cost c = compress_with_feedback(params_of(d, seed), m.values.data(), residual.data(), n, m.packed);
  m.value_format = d.format;
  m.packed_count = n;
  m.values = {};
  if (keyed) {
    for (std::size_t j = 0; j < m.keys.size(); ++j)
      by_key_[m.keys[j]].assign(residual.begin() + static_cast<long>(j * width),
                                residual.begin() + static_cast<long>((j + 1) * width));
  } else {
    by_range_[m.header.range] = std::move(residual);
  }
  return c;
}

const std::vector<float>& GradientCompressor::range_residual(std::uint32_t range) const {
  static const std::vector<float> kNone;
  const auto it = by_range_.find(range);
  return it == by_range_.end() ? kNone : it->second;
}

}  // namespace pstwin
