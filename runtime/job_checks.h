// Checks of a scenario against facts of its data that prepare_training and `pstwin validate`
// (data_check.h) both make, so both refuse the same input with the same message.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/scenario/scenario.h"

namespace pstwin {

/// The most key blocks a "consistent_hash" or "balanced" partition may make: each is a key range,
/// so a message per worker and clock.
inline constexpr std::uint64_t kMaxBlocks = 1u << 20;

/// Throws ScenarioError at /cluster/servers when a model of `keys` keys leaves a server with
/// none (its clock, and every evaluation, would stay at 0) or one with more than 2^32 - 1 (range
/// sizes travel as 32-bit lengths), and at /partition/block_keys when a block partition
/// would cut the keys into more than kMaxBlocks blocks.
void check_servers_have_keys(const Scenario& scenario, std::uint64_t keys);

/// Throws ScenarioError at /cluster/workers when `rows` training rows (from `source`, for the
/// message) leave a worker without any.
void check_workers_have_rows(const Scenario& scenario, std::uint64_t rows, const std::string& source);

/// The checks that need the training set's row count `rows` (from `source`, for the messages),
/// each a ScenarioError at its pointer:
/// - a row for every worker (/cluster/workers);
/// - with training.epochs, at most a billion iterations per worker (iterations_per_worker);
/// - when `exact`, a batch no larger than the smallest worker partition, rows / workers rounded
///   down (/training/batch_size): a larger one would use some examples twice in one gradient.
/// The first two stay sound when `rows` is only a lower bound (a file read in part): `exact`
/// false then.
void check_training_set_size(const Scenario& scenario, std::uint64_t rows, const std::string& source,
                             bool exact = true);

/// Throws ScenarioError at /training/target_metric when the target cannot be reached by the
/// model type's test metric: an accuracy outside (0, 1], or an RMSE that is not positive.
/// Nothing to check for the synthetic model (no metric) or without a target.
void check_target_metric(const Scenario& scenario);

}  // namespace pstwin
