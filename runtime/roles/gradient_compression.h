// The roles' side of compression (DESIGN.md, "Compression"): packing a message's values for the
// wire, unpacking them on arrival, and the worker's clipping and error-feedback residuals.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "kernels/cost.h"
#include "runtime/message.h"
#include "runtime/roles/compression_config.h"

namespace pstwin {

/// The seed of one message's int8 rounding: a mix of the scenario seed, the sending node, the
/// clock, the key range and the direction, so every environment draws the same bits and no two
/// messages of a job share their random numbers.
std::uint64_t packing_seed(std::uint64_t scenario_seed, NodeId sender, std::int64_t clock, std::uint32_t range,
                           bool pull);

/// Packs msg.values (moved out) into msg.packed as d.format; nothing when d.format is kFloat32 or
/// the message has virtual values. Returns the compressor's Cost.
Cost pack_values(Message& msg, const CompressionDirection& d, std::uint64_t seed);

/// Unpacks a packed message into msg.values (and clears its packed fields); nothing for a plain
/// message. Throws ProtocolError when the packing is invalid. Returns the Cost.
Cost unpack_values(Message& msg);

/// A worker's half of compression: clipping and, with error feedback, the residuals, the part of
/// each gradient that was not sent, added to the next one (dense: by key range; sparse: by key).
/// Residuals live only in this object: a worker that fails and rejoins, or a job resumed from a
/// checkpoint, starts again from zero residuals (README, "Compression").
class GradientCompressor {
 public:
  /// `self`: the worker's node id (seeds its int8 rounding).
  GradientCompressor(const CompressionConfig& config, NodeId self) : config_(config), self_(self) {}

  /// Clips the worker's gradient in place as configured (by global L2 norm or by value).
  Cost clip(std::vector<float>& grad) const;

  /// Packs push m's values (a whole range `range`, or with msg_flags::kKeyed the rows of m.keys,
  /// `width` floats each), adding and renewing the residuals under error feedback.
  Cost pack_push(Message& m, std::size_t width);

  /// The residual of a dense key range (empty before its first push), for tests.
  const std::vector<float>& range_residual(std::uint32_t range) const;

 private:
  const CompressionConfig& config_;
  NodeId self_;
  std::map<std::uint32_t, std::vector<float>> by_range_;  ///< dense models
  std::map<Key, std::vector<float>> by_key_;              ///< sparse models: one row per key
};

}  // namespace pstwin
