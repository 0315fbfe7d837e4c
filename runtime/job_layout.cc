#include "runtime/job_layout.h"

#include "runtime/rng.h"

namespace pstwin {

namespace {
/// The Rng::derive_seed stream of a node's role: 0, apart from data (1-3, with a node key no node
/// has), stragglers (3, keyed by worker index) and failures ("FAIL").
constexpr std::uint64_t kRoleStream = 0;
}  // namespace

std::uint64_t role_stream_seed(std::uint64_t scenario_seed, NodeRole role, std::uint32_t index) {
  return Rng::derive_seed(scenario_seed, node_stream_key(role, index), kRoleStream);
}

}  // namespace pstwin
