#include "runtime/output/trace_recorder.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "runtime/output/atomic_file.h"

namespace pstwin {

namespace {

/// "scheduler", "server:1", "worker:3": how the rest of the outputs name nodes.
std::string trace_node_name(const JobLayout& layout, std::uint32_t node) {
  switch (layout.role(node)) {
    case NodeRole::kScheduler: return "scheduler";
    case NodeRole::kServer: return "server:" + std::to_string(layout.server_index(node));
    case NodeRole::kWorker: break;
  }
  return "worker:" + std::to_string(layout.worker_index(node));
}

const char* role_name(NodeRole role) {
  switch (role) {
    case NodeRole::kScheduler: return "scheduler";
    case NodeRole::kServer: return "server";
    case NodeRole::kWorker: break;
  }
  return "worker";
}

/// Whole microseconds, as the format's ts and dur are read most reliably.
long long micros(double seconds) { return std::llround(seconds * 1e6); }

}  // namespace

TraceRecorder::TraceRecorder(JobLayout layout, std::size_t max_spans)
    : layout_(layout),
      per_node_(std::max(kMinSpansPerNode, max_spans / std::max<std::size_t>(1, layout.nodes()))),
      per_node_count_(layout.nodes(), 0) {
  if (max_spans == 0) throw std::invalid_argument("TraceRecorder: max_spans must be positive");
}

std::uint16_t TraceRecorder::intern(std::string_view name) {
  for (std::size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == name) return static_cast<std::uint16_t>(i);
  names_.emplace_back(name);
  return static_cast<std::uint16_t>(names_.size() - 1);
}

void TraceRecorder::add(std::uint32_t node, std::string_view name, double start_s, double end_s) {
  // A few names are used by the roles; a flood of new ones can only come from a corrupt report.
  if (node >= layout_.nodes() || per_node_count_[node] >= per_node_ || names_.size() >= 1000 ||
      !std::isfinite(start_s) || !std::isfinite(end_s)) {
    ++dropped_;
    return;
  }
  ++per_node_count_[node];
  spans_.push_back(Span{node, intern(name), start_s, std::max(start_s, end_s)});
}

std::string TraceRecorder::json(std::string_view clock) const {
  std::string out = "{\"displayTimeUnit\":\"ms\",\"otherData\":";
  out += nlohmann::json{{"clock", clock},
                        {"spans_kept", spans_.size()},
                        {"spans_dropped", dropped_},
                        {"max_spans_per_node", per_node_}}
             .dump();
  out += ",\"traceEvents\":[\n";
  bool first = true;
  auto line = [&](const std::string& event) {
    if (!first) out += ",\n";
    first = false;
    out += event;
  };
  for (std::uint32_t n = 0; n < layout_.nodes(); ++n) {
    const auto pid = n + 1;
    line(nlohmann::json{{"ph", "M"}, {"name", "process_name"}, {"pid", pid}, {"tid", 1},
                        {"args", {{"name", trace_node_name(layout_, n)}}}}.dump());
    line(nlohmann::json{{"ph", "M"}, {"name", "process_sort_index"}, {"pid", pid}, {"tid", 1},
                        {"args", {{"sort_index", n}}}}.dump());
    line(nlohmann::json{{"ph", "M"}, {"name", "thread_name"}, {"pid", pid}, {"tid", 1},
                        {"args", {{"name", role_name(layout_.role(n))}}}}.dump());
  }
  std::vector<std::string> quoted;
  for (const auto& name : names_) quoted.push_back(nlohmann::json(name).dump());
  std::vector<const Span*> order;
  order.reserve(spans_.size());
  for (const auto& s : spans_) order.push_back(&s);
  std::stable_sort(order.begin(), order.end(), [](const Span* a, const Span* b) {
    if (a->start_s != b->start_s) return a->start_s < b->start_s;
    return a->end_s > b->end_s;
  });
  for (const Span* s : order) {
    const long long ts = micros(s->start_s);
    const long long dur = std::max(0LL, micros(s->end_s) - ts);
    line("{\"ph\":\"X\",\"cat\":\"pstwin\",\"name\":" + quoted[s->name] +
         ",\"pid\":" + std::to_string(s->node + 1) + ",\"tid\":1,\"ts\":" + std::to_string(ts) +
         ",\"dur\":" + std::to_string(dur) + "}");
  }
  out += "\n]}\n";
  return out;
}

void TraceRecorder::write(const std::string& path, std::string_view clock) const {
  write_file_atomically(path, json(clock));
}

}  // namespace pstwin
