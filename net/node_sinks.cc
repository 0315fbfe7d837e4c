#include "net/node_sinks.h"

#include <iostream>

namespace pstwin::net {

void LockedSink::staleness(std::int64_t s, std::uint64_t count) {
  std::lock_guard lock(mutex_);
  inner_.staleness(s, count);
}
void LockedSink::updates_applied(std::uint64_t n) {
  std::lock_guard lock(mutex_);
  inner_.updates_applied(n);
}
void LockedSink::bytes_to_servers(std::uint64_t bytes) {
  std::lock_guard lock(mutex_);
  inner_.bytes_to_servers(bytes);
}
void LockedSink::eval(EvalRow row) {
  std::lock_guard lock(mutex_);
  inner_.eval(row);
}
void LockedSink::event(double time_s, const std::string& type, nlohmann::json fields) {
  std::lock_guard lock(mutex_);
  inner_.event(time_s, type, std::move(fields));
}
void LockedSink::finish(const std::string& sha, bool diverged, const std::string& reason) {
  std::lock_guard lock(mutex_);
  inner_.finish(sha, diverged, reason);
}

void LockedSink::span(std::uint32_t node, std::string_view name, double start_s, double end_s) {
  std::lock_guard lock(mutex_);
  inner_.span(node, name, start_s, end_s);
}

void StderrEventSink::event(double time_s, const std::string& type, nlohmann::json fields) {
  fields["time_s"] = time_s;
  fields["type"] = type;
  fields["node"] = node_;
  // One write per line: the nodes of a launched job share the launcher's stderr, and lines
  // written piecewise would interleave.
  std::cerr << std::string("pstwin event: ").append(fields.dump()).append("\n") << std::flush;
}

}  // namespace pstwin::net
