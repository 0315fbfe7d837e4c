// tune_allocator (cli/allocator_tuning.h): message parts come from the heap after it, 40 MB
// vectors from mappings of their own, and a setting the user made in the environment is left alone.
#include "cli/allocator_tuning.h"

#include "net/zmq_parts.h"

#include <gtest/gtest.h>

#include <malloc.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace pstwin::cli {
namespace {

// Under AddressSanitizer malloc is the sanitizer's, which mallopt does not reach (it returns 0):
// there is no glibc heap to tune, and these tests say so instead of failing.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitizerAllocator = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
constexpr bool kSanitizerAllocator = true;
#else
constexpr bool kSanitizerAllocator = false;
#endif
#else
constexpr bool kSanitizerAllocator = false;
#endif

#define SKIP_UNDER_SANITIZER_ALLOCATOR() \
  if (kSanitizerAllocator) GTEST_SKIP() << "a sanitizer's allocator replaces glibc's: mallopt does not apply"

// An environment of the given variables only.
auto environment(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(AllocatorTuning, TheUsersMallocVariablesWin) {
  SKIP_UNDER_SANITIZER_ALLOCATOR();
  const AllocatorTuning mmap_only = tune_allocator(environment({{"MALLOC_MMAP_THRESHOLD_", "65536"}}));
  EXPECT_FALSE(mmap_only.mmap_threshold_set);
  EXPECT_TRUE(mmap_only.trim_threshold_set);
  const AllocatorTuning trim_only = tune_allocator(environment({{"MALLOC_TRIM_THRESHOLD_", "0"}}));
  EXPECT_TRUE(trim_only.mmap_threshold_set);
  EXPECT_FALSE(trim_only.trim_threshold_set);
}

// glibc ignores a MALLOC_*_ value that is not a number: that is no choice of the user's to keep,
// so pstwin's setting is made and the variable is named (a trial's "abc" turned tuning off
// without a word).
TEST(AllocatorTuning, AVariableThatIsNotANumberIsNamedAndPstwinsSettingMade) {
  const AllocatorTuning done = tune_allocator(environment({{"MALLOC_MMAP_THRESHOLD_", "abc"},
                                                           {"MALLOC_TRIM_THRESHOLD_", "0x10000"}}));
  ASSERT_EQ(done.malformed_variables, std::vector<std::string>{"MALLOC_MMAP_THRESHOLD_"});
  ASSERT_EQ(done.notes.size(), 1u);
  EXPECT_EQ(done.notes[0].find("MALLOC_MMAP_THRESHOLD_='abc' is not a number, so glibc ignored it; pstwin sets its "
                               "own value instead"),
            0u)
      << done.notes[0];
  EXPECT_FALSE(done.trim_threshold_set);  // hex is a number glibc reads: the user's
  if (!kSanitizerAllocator) {
    EXPECT_TRUE(done.mmap_threshold_set);
  }
}

TEST(AllocatorTuning, TheUsersGlibcTunablesWin) {
  SKIP_UNDER_SANITIZER_ALLOCATOR();
  const AllocatorTuning done = tune_allocator(environment(
      {{"GLIBC_TUNABLES", "glibc.malloc.arena_max=2:glibc.malloc.trim_threshold=4096"}}));
  EXPECT_TRUE(done.mmap_threshold_set);
  EXPECT_FALSE(done.trim_threshold_set);
}

// A values part (1 MiB and libzmq's header) is reused from the heap; a 40 MB vector has its own
// mapping, given back to the system when freed, so a spent one does not stay resident.
TEST(AllocatorTuning, APartComesFromTheHeapAndAFortyMegabyteVectorIsMappedOnItsOwn) {
  SKIP_UNDER_SANITIZER_ALLOCATOR();
  const AllocatorTuning done = tune_allocator(environment({}));
  ASSERT_TRUE(done.mmap_threshold_set);
  ASSERT_TRUE(done.trim_threshold_set);
  const std::size_t mapped_before = mallinfo2().hblks;
  // Volatile and written, so the compiler keeps each allocation.
  char* volatile part = static_cast<char*>(std::malloc(net::kValueChunkBytes + 64));
  ASSERT_NE(part, nullptr);
  part[0] = 1;
  EXPECT_EQ(mallinfo2().hblks, mapped_before) << "a values part was served by its own mmap";
  char* volatile vector = static_cast<char*>(std::malloc(40'000'000));  // 10M values
  ASSERT_NE(vector, nullptr);
  vector[0] = 1;
  EXPECT_EQ(mallinfo2().hblks, mapped_before + 1) << "a 40 MB vector came from the heap";
  std::free(vector);
  EXPECT_EQ(mallinfo2().hblks, mapped_before) << "a freed 40 MB vector was kept";
  std::free(part);
}

}  // namespace
}  // namespace pstwin::cli
