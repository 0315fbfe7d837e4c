#include "cli/launch_failures.h"

#include <sstream>

#include "runtime/seconds_text.h"
#include "runtime/count_text.h"

namespace pstwin::cli {

std::string failures_pointer(const Scenario& base, std::size_t i) {
  const auto variants = base.source.find("variants");
  if (variants == base.source.end() || !variants->is_array() || i >= variants->size()) return "/failures";
  const auto set = (*variants)[i].find("set");
  if (set == (*variants)[i].end() || !set->is_object()) return "/failures";
  for (const auto& [key, value] : set->items())
    if (key == "/failures" || key.rfind("/failures/", 0) == 0)
      // The key is one token of the pointer: json_pointer escapes its "/" and "~" (RFC 6901).
      return (nlohmann::json::json_pointer("/variants/" + std::to_string(i) + "/set") / key).to_string();
  return "/failures";
}

std::string launch_cannot_inject(const Scenario& run, const std::string& transport, bool hostfile) {
  if (run.failures.empty()) return "";
  for (const auto& f : run.failures)
    if (f.kind == FailureSpec::Kind::kLink) return "cannot cut a real link: link failures are simulated only";
  if (transport != "zmq" && transport != "ucx") return "needs --transport zmq or ucx (processes to kill)";
  if (hostfile) return "works on local processes only, not with --hostfile";
  return "";
}

std::string failure_notes(const Scenario& base) {
  std::ostringstream out;
  for (std::size_t i = 0; i < base.consistency.size(); ++i) {
    const Scenario run = scenario_for_variant(base, i);
    if (run.failures.empty()) continue;
    const std::string at = failures_pointer(base, i) + " (variant " + base.consistency[i].name + ")";
    const std::string why = launch_cannot_inject(run, "zmq", false);
    if (!why.empty()) out << "note: " << at << ": launch " << why << "; simulate injects them\n";
    else out << "note: " << at << ": launch injects these only with --transport zmq or ucx on local processes\n";
    if (!run.training.time_budget_s) continue;
    for (std::size_t f = 0; f < run.failures.size(); ++f)
      if (run.failures[f].kind == FailureSpec::Kind::kJoin && run.failures[f].at_s >= *run.training.time_budget_s)
        out << "warning: " << at << ": " << run.failures[f].target.text() << " joins at "
            << seconds_text(run.failures[f].at_s) << " s, not before training.time_budget ("
            << seconds_text(*run.training.time_budget_s)
            << " s): the run ends first, so it never joins (events.jsonl: join_not_happened)\n";
  }
  return out.str();
}

std::string loaded_machine_warning(const Scenario& run, const std::string& name, double load, unsigned cores) {
  const double timeout = run.fault_tolerance.heartbeat_timeout_s;
  if (!run.fault_tolerance.enabled || cores == 0 || load <= cores || timeout >= 1.0) return "";
  std::ostringstream out;
  out.precision(3);
  out << "launch: warning: variant " << name << ": this machine is loaded (load average " << load << " on "
      << count_text(cores, "core") << ") and heartbeat_timeout is " << seconds_text(timeout)
      << " s: starved nodes may miss heartbeats and be declared dead although they live; give it room "
         "(--set /fault_tolerance/heartbeat_timeout=2s)\n";
  return out.str();
}

}  // namespace pstwin::cli
