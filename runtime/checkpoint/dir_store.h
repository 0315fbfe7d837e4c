// DirCheckpointStore: checkpoints as files in a folder (the layout of checkpoint_dir.h).
#pragma once

#include <string>

#include "runtime/checkpoint/checkpoint_store.h"

namespace pstwin {

/// Stores each key range's checkpoint as DIR/clock-<c>/range-<r>.ckpt (written atomically) and
/// completes a checkpoint with DIR/clock-<c>/COMPLETE. Safe to use from several threads when they
/// store different ranges (an in-process job). On several machines DIR must be one shared folder.
class DirCheckpointStore : public CheckpointStore {
 public:
  explicit DirCheckpointStore(std::string dir) : dir_(std::move(dir)) {}
  void store(const ShardCheckpoint& checkpoint) override;
  void complete(std::int64_t clock, std::uint32_t ranges, double time_s) override;
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

}  // namespace pstwin
