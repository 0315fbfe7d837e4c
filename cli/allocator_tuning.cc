// Why: glibc serves every block of 32 MB or more with its own mmap and unmaps it on free. A
// 10M-value push is 40 MB, so each message ZeroMQ receives, each one UCX stages and each buffer
// CURVE encrypts into was fresh memory, faulted in page by page (10,000 faults a message): a
// node spent more time there than moving the bytes. With the threshold above every message size
// such blocks come from the heap and are reused, and a high trim threshold keeps the heap from
// being handed back between two messages. The peak memory this costs is measured in
// bench/transports.sh (README, "Transport benchmark").
#include "cli/allocator_tuning.h"

#include <malloc.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

namespace pstwin::cli {
namespace {

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
