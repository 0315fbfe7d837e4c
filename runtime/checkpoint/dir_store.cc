#include "runtime/checkpoint/dir_store.h"

#include <filesystem>

#include "runtime/checkpoint/checkpoint_dir.h"
#include "runtime/checkpoint/shard_checkpoint.h"
#include "runtime/errors.h"

namespace pstwin {

void DirCheckpointStore::store(std::int64_t clock, std::uint32_t range,
                               const std::vector<std::uint8_t>& bytes) {
  std::error_code ec;
  std::filesystem::create_directories(checkpoint_clock_dir(dir_, clock), ec);
  if (ec)
    throw CheckpointError("cannot create " + checkpoint_clock_dir(dir_, clock) + ": " + ec.message());
  write_file_atomically(checkpoint_file(dir_, clock, range), bytes);
}

void DirCheckpointStore::complete(std::int64_t clock, std::uint32_t ranges, double time_s) {
  mark_complete(dir_, clock, ranges, time_s);
}

}  // namespace pstwin
