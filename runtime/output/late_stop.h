// A stop from outside (a signal) that came once a run had completed: said in its summary as
// arriving after completion, never taken for a stop before it (DESIGN.md, "A job stopped from
// outside").
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/output/run_recorder.h"

namespace pstwin {

/// The words a completed run's reason gets for a stop that came after completion: "the job had
/// completed (all 40 clocks done) when it was stopped by SIGHUP: the signal came after
/// completion", or "(its target_metric rule had ended training)" when `stop_rule` (a stopping
/// rule's name, empty when the run did all its `iterations`) ended it. `why`: the StopRequest's
/// reason ("stopped by SIGHUP").
std::string late_stop_note(const std::string& stop_rule, std::uint64_t iterations, const std::string& why);

/// For a run whose scheduler had returned (its outputs being written) when the stop `why`
/// came, so that it never saw it: when `summary` (make_summary's) says the run completed and
/// did not diverge, and `recorder` holds no "stopped_after_completion" event yet (the scheduler
/// noted none), writes one at `time_s` ({"reason": why, "clock": final_clock}), flushes the
/// recorder and adds late_stop_note to the summary's reason ("; " after a reason it had).
/// Otherwise changes nothing. A signal in that window once left a completed run's reason empty.
void note_stop_after_completion(nlohmann::json& summary, RunRecorder& recorder, double time_s,
                                const std::string& why);

}  // namespace pstwin
