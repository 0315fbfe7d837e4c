// Process-wide malloc settings for the processes that move messages (launch and node): large
// message buffers come from the heap and go back to it, rather than each being a fresh mmap
// (DESIGN.md, "The hot path").
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace pstwin::cli {

/// What tune_allocator() did with each of glibc's two settings.
struct AllocatorTuning {
  bool mmap_threshold_set = false;  ///< M_MMAP_THRESHOLD raised (false: the user's, or refused)
  bool trim_threshold_set = false;  ///< M_TRIM_THRESHOLD raised (false: the user's, or refused)
  /// MALLOC_*_ variables set to what is not a number ("abc"), which glibc ignores: pstwin's own
  /// setting applies instead, and each is said in `notes` ("MALLOC_MMAP_THRESHOLD_='abc' is
  /// not a number ...").
  std::vector<std::string> malformed_variables;
  std::vector<std::string> notes;  ///< one line each, for stderr, without "pstwin: "
};

/// Blocks up to this size are served from the heap, not by their own mmap: every part libzmq
/// receives or CURVE encrypts (1 MiB values parts, net/zmq_parts.h, with room for the 4 MiB
/// tried), so those are reused. Larger blocks, the 40 MB value vectors of a 10M-value job, are
/// mapped on their own and unmapped when freed: they are few and long-lived (the role's
/// parameters, the node's spare values, pool frames), and a freed one goes back to the system
/// instead of staying resident in the heap (peak memory: DESIGN.md, "The hot path").
inline constexpr int kTunedMmapThresholdBytes = 8 << 20;
/// The heap is given back to the system only when this much is free at its top (the largest
/// value mallopt's int takes, about 2 GiB).
inline constexpr int kTunedTrimThresholdBytes = 0x7fffffff;

/// Sets glibc's M_MMAP_THRESHOLD and M_TRIM_THRESHOLD (mallopt) so that a message part freed by
/// ZeroMQ is reused by the next one instead of being unmapped and the next one page-faulted in
/// afresh, while a freed 40 MB vector is unmapped rather than kept in the heap. A setting the user made wins: MALLOC_MMAP_THRESHOLD_ or
/// MALLOC_TRIM_THRESHOLD_ in the environment, or the matching glibc.malloc tunable in
/// GLIBC_TUNABLES, leaves that setting alone (glibc applied it at start-up); a MALLOC_*_ value
/// that is not a number (decimal, or hex with 0x) is not a choice glibc applied, so pstwin's
/// setting is made and the variable reported in `malformed_variables` and `notes`. `getenv` looks
/// variables up (std::getenv; tests pass their own). REQUIRES: called once, early in main, before
/// other threads start. Never throws; a setting glibc refuses is reported as not set.
AllocatorTuning tune_allocator(const std::function<const char*(const char*)>& getenv = {});

}  // namespace pstwin::cli
