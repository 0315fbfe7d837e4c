// The scenario check that every message a job sends fits the wire's size limit
// (kDefaultMaxMessageBytes, runtime/codec.h). A receiver drops a larger message, so a job whose
// key range is too large for one message would only stall; this check refuses it before
// anything starts, in validate, simulate, launch, sweep and node alike (for each run:
// check_runs_fit_their_models, runtime/model_size_checks.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "runtime/codec.h"
#include "runtime/scenario/scenario.h"

namespace pstwin {

/// The largest message a job sends, by the scenario's shape.
struct LargestMessage {
  std::string what;         ///< what it is, for the error: "a pull reply of one key range (...)"
  std::uint64_t bytes = 0;  ///< its encoded size in bytes (as encoded_size() would count it)
};

/// The largest message a job of `keys` keys, each `values_per_key` float32 values, sends: the
/// push or pull reply of its largest key range (an explicit key list when `sparse`), a resuming
/// kStart with the optimizer's state when checkpoints are on, and with replication > 1 a
/// kShardState (params, optimizer state and up to workers - 1 buffered gradients). The
/// synthetic model carries no parameters in a kStart or kShardState, only in pushes and pulls.
/// REQUIRES: servers >= 1, partition.block_keys >= 1.
LargestMessage largest_message(const Scenario& scenario, std::uint64_t keys, std::size_t values_per_key,
                               bool sparse);

/// Throws ScenarioError when largest_message() exceeds `limit` bytes, at /cluster/servers under
/// the "range" partition (naming the fewest servers that fit) or at /partition/block_keys under a
/// block partition (naming the most keys per block that fit), with the message, its size and
/// the limit.
void check_messages_fit_the_wire(const Scenario& scenario, std::uint64_t keys, std::size_t values_per_key,
                                 bool sparse, std::uint64_t limit = kDefaultMaxMessageBytes);

}  // namespace pstwin
