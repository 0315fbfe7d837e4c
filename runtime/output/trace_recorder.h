// TraceRecorder: a run's timeline, written as DIR/trace.json in the Trace Event Format that
// Perfetto's UI and chrome://tracing open as is (DESIGN.md, "Outputs").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/job_layout.h"

namespace pstwin {

/// Total spans a run's trace keeps by default: about 100 bytes each in trace.json, so ~50 MB at
/// most. Each node gets an equal share (at least kMinSpansPerNode); a node's spans past its share
/// are counted, not kept, so a 1,000-worker run still shows every node's first iterations.
inline constexpr std::size_t kDefaultTraceSpans = 500'000;
inline constexpr std::size_t kMinSpansPerNode = 100;

/// Keeps the spans of every node of a job (MetricsSink::span) and writes them as Trace Event
/// Format JSON: one process per node (pid = node id + 1, named "scheduler", "server:0",
/// "worker:3" by "M" metadata events, sorted in node order), one thread per node named after its
/// role, and one "X" (complete) event per span with ts and dur in microseconds of the job's clock.
/// Single-threaded (callers lock, as LockedSink does).
class TraceRecorder {
 public:
  /// REQUIRES: max_spans > 0 (a run without a trace has no TraceRecorder).
  TraceRecorder(JobLayout layout, std::size_t max_spans = kDefaultTraceSpans);

  /// Keeps node `node`'s span [start_s, end_s] named `name` unless the node's share is full.
  /// A node id outside the layout (a corrupt report) is counted as dropped, never kept.
  void add(std::uint32_t node, std::string_view name, double start_s, double end_s);

  /// Spans kept, and spans dropped because a node's share was full (or the node unknown).
  std::size_t kept() const { return spans_.size(); }
  std::size_t dropped() const { return dropped_; }
  /// The most spans one node keeps: max(kMinSpansPerNode, max_spans / nodes).
  std::size_t per_node() const { return per_node_; }

  /// The trace as a JSON text: {"traceEvents": [...], "displayTimeUnit": "ms", "otherData":
  /// {"clock", "spans_kept", "spans_dropped", "max_spans_per_node"}}. Spans are sorted by start
  /// time (a longer one first at equal starts, so nested spans follow their parent).
  /// `clock` says what the times are ("simulated" or "wall") for otherData.
  std::string json(std::string_view clock) const;
  /// Writes json(clock) to `path` atomically; throws std::runtime_error naming the path on failure.
  void write(const std::string& path, std::string_view clock) const;

 private:
  struct Span {
    std::uint32_t node;
    std::uint16_t name;  // index into names_
    double start_s;
    double end_s;
  };
  std::uint16_t intern(std::string_view name);

  JobLayout layout_;
  std::size_t per_node_;
  std::vector<std::size_t> per_node_count_;
  std::vector<std::string> names_;
  std::vector<Span> spans_;
  std::size_t dropped_ = 0;
};

}  // namespace pstwin
