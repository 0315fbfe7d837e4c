// Time lost to failures: computed from a run's events, the same way for simulate and launch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pstwin {

/// True for the event types the accounting below reads ("node_failed", "link_failed",
/// "link_restored", "node_dead", "node_rejoined", "failover", "worker_rejoined"); RunRecorder
/// keeps only these.
bool is_failure_accounting_event(const std::string& type);

/// Number of injected failures: "node_failed" plus "link_failed" events.
std::uint64_t count_failures(const std::vector<nlohmann::json>& events);

/// Seconds of the run spent between each failure and its recovery, summed over failures.
/// `events` are events.jsonl objects ({"time_s", "type", ...}) in any order (launch appends the
/// launcher's lines after the scheduler's); they are ordered by time_s here, ties keeping input
/// order. For each "node_failed" or "link_failed" of node N at time t, the recovery is the first
/// event at or after t that is
///   - "node_dead" of N (the scheduler gave up on it: a worker's barrier is released, a server's
///     ranges are promoted), "link_restored" of N or "node_rejoined" of N (restarted and taken
///     back before it was declared dead), for any node;
///   - "worker_rejoined" of that worker ({"worker": i} names "worker:i"), when N is a worker;
///   - "failover" (any range: a backup took over), when N is a server.
/// It counts (recovery time - t); a failure without one counts until `end_s` (never below 0).
/// Events that are not objects or lack a numeric time_s or string type are ignored. 0 when there
/// is no failure.
double time_lost_to_failures(const std::vector<nlohmann::json>& events, double end_s);

/// Sets summary["failures"] (count_failures) and summary["time_lost_s"]
/// (time_lost_to_failures(events, end_s)). make_summary uses it; a launcher that appends events
/// after the summary was written can call it again with read_events_jsonl and rewrite the summary.
void set_failure_fields(nlohmann::json& summary, const std::vector<nlohmann::json>& events,
                        double end_s);

/// The objects of an events.jsonl file, one per line; lines that do not parse (a truncated last
/// line of a killed run) are skipped. An unreadable or missing file gives none.
std::vector<nlohmann::json> read_events_jsonl(const std::string& path);

}  // namespace pstwin
