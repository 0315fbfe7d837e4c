// Running one variant of `pstwin launch` as processes: starting the scheduler, servers and
// workers (locally or over ssh), supervising them until the job ends, and repairing the summary
// from what the launcher saw (cli/launch_summary.h).
#pragma once

#include <string>
#include <vector>

#include "cli/hostfile.h"
#include "net/live_metrics.h"
#include "net/stop_request.h"
#include "runtime/scenario/scenario.h"

namespace pstwin::cli {

/// Settings shared by the nodes of every variant.
struct LaunchSettings {
  std::string scenario_path;
  std::vector<std::string> sets;
  std::string key_file;  // empty: make one per variant (unless insecure)
  bool insecure = false;
  bool ucx = false;  // --transport ucx
  double connect_timeout_s = 30.0;
  double stall_timeout_s = 300.0;
  std::vector<HostSlots> hosts;  // empty: local processes
  std::string ssh_command = "ssh";
  std::string scheduler_host;
  unsigned port = 0;
  std::string device = "cpu";  // what every node computes with: resolved here unless remote
  std::string resume;          // an earlier run's output folder; empty: start afresh
  std::string metrics_address = net::kDefaultMetricsAddress;  // the schedulers'; "none": off
  bool quiet = false;  // --quiet: no line per variant started, no live metrics' address
  /// Set by a signal to the launcher, which relayed it to the nodes already (null: none).
  const net::StopRequest* stop = nullptr;
};

/// Where variant `variant`'s checkpoints are kept (or resumed from) under output folder `out`
/// (absolute).
std::string checkpoint_dir_of(const std::string& out, const std::string& variant);

/// Runs variant `variant` of `scenario` as separate processes (pstwin node), its outputs in
/// `dir`; returns non-zero when any role failed: the scheduler's exit status, or, when the
/// launcher stopped the job because a node it cannot go on without ended abnormally (without
/// fault tolerance, or before the job started), that node's exit code (1 for a signal). Every
/// outcome leaves a summary.json in `dir`. Once `s.stop` is requested, the processes get
/// kStoppedChildrenGrace_s to end (cli/child_process.h); no node ending then counts as lost.
/// Throws std::runtime_error when a process cannot be started (fork).
int launch_processes(const Scenario& scenario, const ConsistencyVariant& variant,
                     const LaunchSettings& s, const std::string& dir);

}  // namespace pstwin::cli
