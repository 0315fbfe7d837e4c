// "compression": how pushes and pull replies are packed, and how workers clip their gradients.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "runtime/roles/compression_config.h"

namespace pstwin {

/// Reads {"push": {"format", "ratio"?, "error_feedback"?}?, "pull": {"format"}?,
/// "clip": {"global_norm"} or {"value"}?} at `ptr` (README, "Compression"). Push formats: none,
/// fp16, bf16, int8, onebit, topk ("ratio" in (0, 1], default 0.01, topk only); error_feedback
/// (default true for onebit and topk, false otherwise) is refused with "none". Pull formats: none,
/// fp16, bf16, int8 (a sign or a top-k of parameters is not a parameter: refused). A clip takes one
/// positive threshold. The synthetic model has no values to compress: the section is refused.
/// The returned config's seed is 0 (make_job_spec sets it). Throws ScenarioError(pointer, what).
CompressionConfig parse_compression(const nlohmann::json& v, const std::string& ptr, bool synthetic);

}  // namespace pstwin
