// How a run ended, as comparison.csv, sweep.csv and the printed tables say it: completed ("ok"),
// diverged, stopped by a signal, or failed, read from its summary.json.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace pstwin::cli {

/// Whether `summary` (a summary.json) is of a run stopped from outside before it completed: not
/// completed, with a stop_reason naming the signal ("SIGINT"; make_summary, unfinished_summary)
/// or "launcher_died" (a launched job's nodes, once their launcher was killed: cli/stop_signals.h).
bool was_stopped(const nlohmann::json& summary);

/// The status column's value for tools: "ok" (completed), "DIVERGED" (completed, diverged),
/// "stopped" (was_stopped: its figures are those it reached, not final ones), or "FAILED" (any
/// other run that did not complete, a missing or unreadable summary included).
std::string run_status(const nlohmann::json& summary);

/// The same for people: a stopped run reads "stopped (SIGINT) at 62%" (its "progress", the share
/// of clocks done at its last evaluation, rounded down), "stopped (SIGINT) before it started"
/// ("started": false), or "stopped (SIGINT)" when its progress is not known (a launched job's
/// scheduler that wrote no summary); the others read as run_status.
std::string run_status_text(const nlohmann::json& summary);

}  // namespace pstwin::cli
