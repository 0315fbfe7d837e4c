#include "runtime/output/late_stop.h"

namespace pstwin {

void note_stop_after_completion(nlohmann::json& summary, RunRecorder& recorder, double time_s,
                                const std::string& why) {
  if (!summary.value("completed", false) || summary.value("diverged", false) || recorder.stopped_after_completion())
    return;
  const std::string ended_by = summary.value("stop_reason", "");
  const bool rule = ended_by != "iterations" && ended_by != "epochs";
  const std::string note =
      late_stop_note(rule ? ended_by : "", summary.value("iterations", std::uint64_t{0}), why);
  recorder.event(time_s, "stopped_after_completion", {{"reason", why}, {"clock", summary.value("final_clock", std::int64_t{0})}});
  recorder.flush();
  const std::string reason = summary.value("reason", "");
  summary["reason"] = reason.empty() ? note : reason + "; " + note;
}

}  // namespace pstwin
