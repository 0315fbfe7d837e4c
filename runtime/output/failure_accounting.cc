#include "runtime/output/failure_accounting.h"

#include <algorithm>
#include <fstream>
#include <optional>

namespace pstwin {

namespace {

struct Ev {
  double time_s;
  std::string type;
  std::string node;  // "worker:i", "server:i", "scheduler"; empty when the event names none
};

std::optional<Ev> parse(const nlohmann::json& e) {
  if (!e.is_object()) return std::nullopt;
  const auto t = e.find("time_s");
  const auto ty = e.find("type");
  if (t == e.end() || !t->is_number() || ty == e.end() || !ty->is_string()) return std::nullopt;
  Ev ev{t->get<double>(), ty->get<std::string>(), {}};
  if (const auto n = e.find("node"); n != e.end() && n->is_string()) {
    ev.node = n->get<std::string>();
  } else if (const auto w = e.find("worker"); w != e.end()) {
    if (w->is_number_integer()) ev.node = "worker:" + std::to_string(w->get<std::int64_t>());
    else if (w->is_string()) ev.node = w->get<std::string>();
  }
  return ev;
}

bool is_failure(const std::string& type) { return type == "node_failed" || type == "link_failed"; }

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// Whether `e` ends the failure of `node`.
bool recovers(const Ev& e, const std::string& node) {
  if (e.type == "node_dead" || e.type == "link_restored" || e.type == "node_rejoined")
    return e.node == node;
  if (e.type == "worker_rejoined") return starts_with(node, "worker:") && e.node == node;
  if (e.type == "failover") return starts_with(node, "server:");
  return false;
}

}  // namespace

bool is_failure_accounting_event(const std::string& type) {
  return is_failure(type) || type == "link_restored" || type == "node_dead" ||
         type == "node_rejoined" || type == "failover" || type == "worker_rejoined";
}

std::uint64_t count_failures(const std::vector<nlohmann::json>& events) {
  std::uint64_t n = 0;
  for (const auto& e : events)
    if (const auto ev = parse(e); ev && is_failure(ev->type)) ++n;
  return n;
}

double time_lost_to_failures(const std::vector<nlohmann::json>& events, double end_s) {
  std::vector<Ev> evs;
  for (const auto& e : events)
    if (auto ev = parse(e); ev && is_failure_accounting_event(ev->type)) evs.push_back(*ev);
  std::stable_sort(evs.begin(), evs.end(),
                   [](const Ev& a, const Ev& b) { return a.time_s < b.time_s; });
  double lost = 0.0;
  for (std::size_t i = 0; i < evs.size(); ++i) {
    if (!is_failure(evs[i].type)) continue;
    double until = end_s;
    for (std::size_t j = i + 1; j < evs.size(); ++j)
      if (recovers(evs[j], evs[i].node)) {
        until = evs[j].time_s;
        break;
      }
    lost += std::max(0.0, until - evs[i].time_s);
  }
  return lost;
}

void set_failure_fields(nlohmann::json& summary, const std::vector<nlohmann::json>& events,
                        double end_s) {
  summary["failures"] = count_failures(events);
  summary["time_lost_s"] = time_lost_to_failures(events, end_s);
}

std::vector<nlohmann::json> read_events_jsonl(const std::string& path) {
  std::vector<nlohmann::json> events;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    auto e = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (e.is_object()) events.push_back(std::move(e));
  }
  return events;
}

}  // namespace pstwin
