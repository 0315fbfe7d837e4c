// CheckpointStore: where an environment keeps the servers' checkpoints.
#pragma once

#include <cstdint>

#include "runtime/checkpoint/shard_checkpoint.h"

namespace pstwin {

/// Storage for checkpoints, provided by the environment (Env::checkpoints()): a real job writes
/// files (DirCheckpointStore, runtime/checkpoint/checkpoint_dir.h layout); a simulated one only
/// spends the modelled time of writing them.
class CheckpointStore {
 public:
  virtual ~CheckpointStore() = default;
  /// Stores one key range's checkpoint (its range and clock say which). Blocks the caller for as
  /// long as the write takes. Throws CheckpointError when it fails.
  virtual void store(const ShardCheckpoint& checkpoint) = 0;
  /// Marks checkpoint `clock` complete: every one of `ranges` key ranges stored it. `time_s` is
  /// the job time of completion.
  virtual void complete(std::int64_t clock, std::uint32_t ranges, double time_s) = 0;
};

}  // namespace pstwin
