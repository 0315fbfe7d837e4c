#include "runtime/output/late_stop.h"

namespace pstwin {

bool late_stop_to_note(const nlohmann::json& summary) {
  return summary.value("completed", false) && !summary.value("diverged", false);
}

nlohmann::json add_late_stop_note(nlohmann::json& summary, const std::string& why) {
  const std::string ended_by = summary.value("stop_reason", "");
  const bool rule = ended_by != "iterations" && ended_by != "epochs";
  const std::string note =
      late_stop_note(rule ? ended_by : "", summary.value("iterations", std::uint64_t{0}), why);
  const std::string reason = summary.value("reason", "");
  summary["reason"] = reason.empty() ? note : reason + "; " + note;
  return {{"reason", why}, {"clock", summary.value("final_clock", std::int64_t{0})}};
}

void note_stop_after_completion(nlohmann::json& summary, RunRecorder& recorder, double time_s,
                                const std::string& why) {
  if (!late_stop_to_note(summary) || recorder.stopped_after_completion()) return;
  recorder.event(time_s, "stopped_after_completion", add_late_stop_note(summary, why));
  recorder.flush();
}

}  // namespace pstwin
