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

/// Whether a stop that came after `summary`'s run ended is to be noted in it: the run completed
/// and did not diverge (a stop before completion is the scheduler's "job_stopped" instead).
bool late_stop_to_note(const nlohmann::json& summary);

/// Adds late_stop_note (runtime/roles/late_stop_note.h) for the stop `why` ("stopped by SIGINT")
/// to `summary`'s reason ("; " after a reason it had), and returns the fields of its
/// "stopped_after_completion" event: {"reason": why, "clock": final_clock}. REQUIRES
/// late_stop_to_note(summary). Throws nothing but the json library's errors on a summary whose
/// keys have the wrong types.
nlohmann::json add_late_stop_note(nlohmann::json& summary, const std::string& why);

/// For a run whose scheduler had returned (its outputs being written) when the stop `why`
/// came, so that it never saw it: when `summary` (make_summary's) says the run completed and
/// did not diverge, and `recorder` holds no "stopped_after_completion" event yet (the scheduler
/// noted none), writes one at `time_s` (add_late_stop_note's fields), flushes the recorder and
/// adds the note to the summary's reason. Otherwise changes nothing. A signal in that window once left a completed run's reason empty.
void note_stop_after_completion(nlohmann::json& summary, RunRecorder& recorder, double time_s,
                                const std::string& why);

}  // namespace pstwin
