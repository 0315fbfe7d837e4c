// A stop from outside (a signal) that came once a run had completed: said in its summary as
// arriving after completion, never taken for a stop before it (DESIGN.md, "Outputs": a job
// stopped from outside).
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/output/run_recorder.h"
#include "runtime/roles/late_stop_note.h"

namespace pstwin {

/// For a run whose scheduler had returned (its outputs being written) when the stop `why`
/// came, so that it never saw it: when `summary` (make_summary's) says the run completed and
/// did not diverge, and `recorder` holds no "stopped_after_completion" event yet (the scheduler
/// noted none), writes one at `time_s` ({"reason": why, "clock": final_clock}), flushes the
/// recorder and adds late_stop_note (runtime/roles/late_stop_note.h) to the summary's reason
/// ("; " after a reason it had). Otherwise changes nothing. A signal in that window once left a completed run's reason empty.
void note_stop_after_completion(nlohmann::json& summary, RunRecorder& recorder, double time_s,
                                const std::string& why);

}  // namespace pstwin
