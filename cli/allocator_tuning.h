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

/// Blocks up to this size are served from the heap, not by their own mmap: as large as every
/// message a node takes (kDefaultMaxMessageBytes is 1 GiB).
inline constexpr int kTunedMmapThresholdBytes = 1 << 30;
/// The heap is given back to the system only when this much is free at its top (the largest
/// value mallopt's int takes, about 2 GiB).
inline constexpr int kTunedTrimThresholdBytes = 0x7fffffff;

/// Raises glibc's M_MMAP_THRESHOLD and M_TRIM_THRESHOLD (mallopt) so that a 40 MB message buffer
/// freed by ZeroMQ, UCX or a role is reused by the next one instead of being unmapped, and the
/// next one page-faulted in afresh. A setting the user made wins: MALLOC_MMAP_THRESHOLD_ or
/// MALLOC_TRIM_THRESHOLD_ in the environment, or the matching glibc.malloc tunable in
/// GLIBC_TUNABLES, leaves that setting alone (glibc applied it at start-up); a MALLOC_*_ value
/// that is not a number (decimal, or hex with 0x) is not a choice glibc applied, so pstwin's
/// setting is made and the variable reported in `malformed_variables` and `notes`. `getenv` looks
/// variables up (std::getenv; tests pass their own). REQUIRES: called once, early in main, before
/// other threads start. Never throws; a setting glibc refuses is reported as not set.
AllocatorTuning tune_allocator(const std::function<const char*(const char*)>& getenv = {});

}  // namespace pstwin::cli
