// The words for a stop from outside (a signal) that came once a job had completed: the
// scheduler's, and the summary's when the stop came after the scheduler returned
// (runtime/output/late_stop.h).
#pragma once

#include <cstdint>
#include <string>

namespace pstwin {

/// "the job had completed (all 40 clocks done) when it was stopped by SIGHUP: the signal came
/// after completion", or "(its target_metric rule had ended training)" when `stop_rule` (a
/// stopping rule's name; empty when the job did all its `iterations`) ended it. `why`: the
/// StopRequest's reason ("stopped by SIGHUP").
std::string late_stop_note(const std::string& stop_rule, std::uint64_t iterations, const std::string& why);

}  // namespace pstwin
