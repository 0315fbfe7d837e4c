// Why: glibc serves large blocks with their own mmap and unmaps them on free (from 128 KiB up,
// the bound rising to 32 MB as such blocks are freed). Each part libzmq receives (1 MiB, wire
// version 7) and each buffer CURVE encrypts into would then be fresh memory, faulted in page by
// page: a node spent more time there than moving the bytes. With the threshold above a part's
// size such blocks come from the heap and are reused, and a high trim threshold keeps the heap
// from being handed back between two messages. The threshold was once 1 GiB, above whole 40 MB
// messages; since values travel in parts and the large vectors are pooled (net/spare_values.h),
// it only keeps a freed 40 MB vector resident, so it came down (bench/transports.sh measures the
// peak memory: README, "Transport benchmark").
#include "cli/allocator_tuning.h"

#include <malloc.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

#include "net/zmq_parts.h"

namespace pstwin::cli {
namespace {

// A part as libzmq allocates it (its bytes and a small header) must come from the heap.
static_assert(static_cast<std::size_t>(kTunedMmapThresholdBytes) >= 2 * net::kValueChunkBytes,
              "the mmap threshold must stay above the values part size");

// Whether `text` is a number as glibc reads a MALLOC_*_ variable: decimal digits, or 0x and hex
// digits. Anything else glibc ignores without a word.
bool is_malloc_number(const std::string& text) {
  const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  const std::string digits = hex ? text.substr(2) : text;
  return !digits.empty() && std::all_of(digits.begin(), digits.end(), [hex](unsigned char c) {
    return hex ? std::isxdigit(c) != 0 : std::isdigit(c) != 0;
  });
}

// Whether the user chose this setting: its MALLOC_*_ variable, or its tunable in GLIBC_TUNABLES.
// A variable glibc ignored is no choice: it goes to `done`'s malformed list instead.
bool user_chose(const std::function<const char*(const char*)>& getenv, const char* variable,
                const char* tunable, AllocatorTuning& done) {
  if (const char* value = getenv(variable); value != nullptr) {
    if (is_malloc_number(value)) return true;
    done.malformed_variables.push_back(variable);
    done.notes.push_back(std::string(variable) + "='" + value + "' is not a number, so glibc ignored it; pstwin "
                         "sets its own value instead (a number of bytes, e.g. 33554432, sets yours)");
  }
  const char* tunables = getenv("GLIBC_TUNABLES");
  return tunables != nullptr && std::strstr(tunables, tunable) != nullptr;
}

}  // namespace

AllocatorTuning tune_allocator(const std::function<const char*(const char*)>& lookup) {
  const std::function<const char*(const char*)> getenv =
      lookup ? lookup : [](const char* name) -> const char* { return std::getenv(name); };
  AllocatorTuning done;
  if (!user_chose(getenv, "MALLOC_MMAP_THRESHOLD_", "glibc.malloc.mmap_threshold", done))
    done.mmap_threshold_set = mallopt(M_MMAP_THRESHOLD, kTunedMmapThresholdBytes) == 1;
  if (!user_chose(getenv, "MALLOC_TRIM_THRESHOLD_", "glibc.malloc.trim_threshold", done))
    done.trim_threshold_set = mallopt(M_TRIM_THRESHOLD, kTunedTrimThresholdBytes) == 1;
  return done;
}

}  // namespace pstwin::cli
