#include "runtime/checkpoint/dir_store.h"

#include "runtime/checkpoint/checkpoint_dir.h"

namespace pstwin {

void DirCheckpointStore::store(const ShardCheckpoint& checkpoint) { write_checkpoint(dir_, checkpoint); }

void DirCheckpointStore::complete(std::int64_t clock, std::uint32_t ranges, double time_s) {
  mark_complete(dir_, clock, ranges, time_s);
}

}  // namespace pstwin
