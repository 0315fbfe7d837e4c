// What a job compresses (scenario section "compression"; README "Compression").
#pragma once

#include <cstdint>

#include "kernels/compression.h"

namespace pstwin {

/// Compression of one direction: pushes (gradients) or pull replies (parameters).
struct CompressionDirection {
  ValueFormat format = ValueFormat::kFloat32;
  double topk_ratio = 0.01;     ///< topk only, in (0, 1]
  bool error_feedback = false;  ///< pushes only: the worker keeps what was not sent
};

/// The job's compression. The default compresses nothing and leaves every message as before.
struct CompressionConfig {
  enum class Clip { kNone, kGlobalNorm, kValue };
  CompressionDirection push;
  CompressionDirection pull;    ///< fp16, bf16 or int8 of the parameters (never error feedback)
  Clip clip = Clip::kNone;      ///< the worker clips its gradient before compressing it
  double clip_threshold = 0.0;  ///< global L2 norm or absolute value, > 0 when clipping
  std::uint64_t seed = 0;       ///< the scenario seed: int8's stochastic rounding derives from it
};

}  // namespace pstwin
