// Why: glibc serves every block of 32 MB or more with its own mmap and unmaps it on free. A
// 10M-value push is 40 MB, so each message ZeroMQ receives, each one UCX stages and each buffer
// CURVE encrypts into was fresh memory, faulted in page by page (10,000 faults a message): a
// node spent more time there than moving the bytes. With the threshold above every message size
// such blocks come from the heap and are reused, and a high trim threshold keeps the heap from
// being handed back between two messages. The peak memory this costs is measured in
// bench/transports.sh (README, "Transport benchmark").
#include "cli/allocator_tuning.h"

#include <malloc.h>

#include <cstdlib>
#include <cstring>

namespace pstwin::cli {
namespace {

// Whether the user chose this setting: its MALLOC_*_ variable, or its tunable in GLIBC_TUNABLES.
bool user_chose(const std::function<const char*(const char*)>& getenv, const char* variable,
                const char* tunable) {
  if (getenv(variable) != nullptr) return true;
  const char* tunables = getenv("GLIBC_TUNABLES");
  return tunables != nullptr && std::strstr(tunables, tunable) != nullptr;
}

}  // namespace

AllocatorTuning tune_allocator(const std::function<const char*(const char*)>& lookup) {
  const std::function<const char*(const char*)> getenv =
      lookup ? lookup : [](const char* name) -> const char* { return std::getenv(name); };
  AllocatorTuning done;
  if (!user_chose(getenv, "MALLOC_MMAP_THRESHOLD_", "glibc.malloc.mmap_threshold"))
    done.mmap_threshold_set = mallopt(M_MMAP_THRESHOLD, kTunedMmapThresholdBytes) == 1;
  if (!user_chose(getenv, "MALLOC_TRIM_THRESHOLD_", "glibc.malloc.trim_threshold"))
    done.trim_threshold_set = mallopt(M_TRIM_THRESHOLD, kTunedTrimThresholdBytes) == 1;
  return done;
}

}  // namespace pstwin::cli
