// tune_allocator (cli/allocator_tuning.h): large blocks come from the heap after it, and a
// setting the user made in the environment is left alone.
#include "cli/allocator_tuning.h"

#include <gtest/gtest.h>

#include <malloc.h>

#include <cstring>
#include <map>
#include <string>

namespace pstwin::cli {
namespace {

// An environment of the given variables only.
auto environment(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(AllocatorTuning, TheUsersMallocVariablesWin) {
  const AllocatorTuning mmap_only = tune_allocator(environment({{"MALLOC_MMAP_THRESHOLD_", "65536"}}));
  EXPECT_FALSE(mmap_only.mmap_threshold_set);
  EXPECT_TRUE(mmap_only.trim_threshold_set);
  const AllocatorTuning trim_only = tune_allocator(environment({{"MALLOC_TRIM_THRESHOLD_", "0"}}));
  EXPECT_TRUE(trim_only.mmap_threshold_set);
  EXPECT_FALSE(trim_only.trim_threshold_set);
}

TEST(AllocatorTuning, TheUsersGlibcTunablesWin) {
  const AllocatorTuning done = tune_allocator(environment(
      {{"GLIBC_TUNABLES", "glibc.malloc.arena_max=2:glibc.malloc.trim_threshold=4096"}}));
  EXPECT_TRUE(done.mmap_threshold_set);
  EXPECT_FALSE(done.trim_threshold_set);
}

TEST(AllocatorTuning, AFortyMegabyteBlockComesFromTheHeapAfterIt) {
  const AllocatorTuning done = tune_allocator(environment({}));
  ASSERT_TRUE(done.mmap_threshold_set);
  ASSERT_TRUE(done.trim_threshold_set);
  const std::size_t mapped_before = mallinfo2().hblks;
  // A 10M-value message; volatile and written, so the compiler keeps the allocation.
  char* volatile block = static_cast<char*>(std::malloc(40'000'000));
  ASSERT_NE(block, nullptr);
  block[0] = 1;
  EXPECT_EQ(mallinfo2().hblks, mapped_before) << "the block was served by its own mmap";
  std::free(block);
}

}  // namespace
}  // namespace pstwin::cli
