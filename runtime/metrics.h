// MetricsSink: where roles report what the run's outputs are made of.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace pstwin {

/// One evaluation of the global model (a row of metrics.csv).
struct EvalRow {
  double time_s = 0.0;        ///< simulated (or wall) seconds since the job started
  std::int64_t clock = 0;     ///< global clock: BSP applied clock, else min worker clock
  std::uint64_t updates = 0;  ///< gradients applied so far, summed over servers
  double train_loss = 0.0;    ///< mean loss on the training evaluation subset (incl. L2 term)
  double test_loss = 0.0;     ///< mean loss on the test set
  double test_metric = 0.0;   ///< accuracy in [0, 1]
  double staleness_mean = 0.0;  ///< over gradients applied since the previous row
  std::int64_t staleness_max = 0;
};

/// Receives measurements from roles. Environments provide one per run; the simulation shares one
/// among all nodes of a run (single-threaded), so implementations need not be thread-safe unless
/// an environment says otherwise.
class MetricsSink {
 public:
  virtual ~MetricsSink() = default;
  /// A server shard applied `count` gradients that were `staleness` clocks old (>= 0).
  virtual void staleness(std::int64_t staleness, std::uint64_t count) = 0;
  /// `n` more gradients were applied to the model (counts toward EvalRow::updates).
  virtual void updates_applied(std::uint64_t n) = 0;
  /// The scheduler evaluated the model. The sink fills updates and staleness fields itself.
  virtual void eval(EvalRow row) = 0;
  /// Something worth a line in events.jsonl: {"time_s":..., "type":..., ...}. `fields` is an
  /// object; the sink adds "time_s" and "type".
  virtual void event(double time_s, const std::string& type, nlohmann::json fields) = 0;
  /// The scheduler heard from a server that workers' pushes and pulls of `bytes` encoded bytes
  /// reached it (summary key bytes_to_servers).
  virtual void bytes_to_servers(std::uint64_t bytes) = 0;
  /// The scheduler's final report: parameters' SHA-256, diverged or not, and a reason.
  virtual void finish(const std::string& params_sha256, bool diverged, const std::string& reason) = 0;
  /// Node `node` (a NodeId) spent [start_s, end_s] on `name` ("compute", "wait_pull", ...: see
  /// runtime/span_scope.h), seconds on the job's clock; a line of the run's timeline (trace.json).
  /// REQUIRES: start_s <= end_s. The default drops it: only sinks that keep a timeline override.
  virtual void span(std::uint32_t /*node*/, std::string_view /*name*/, double /*start_s*/,
                    double /*end_s*/) {}
};

/// A MetricsSink that keeps nothing: for Envs whose nodes run no job worth recording
/// (calibration's echoing pair, tests of environments and roles).
class NullSink : public MetricsSink {
 public:
  void staleness(std::int64_t, std::uint64_t) override {}
  void updates_applied(std::uint64_t) override {}
  void bytes_to_servers(std::uint64_t) override {}
  void eval(EvalRow) override {}
  void event(double, const std::string&, nlohmann::json) override {}
  void finish(const std::string&, bool, const std::string&) override {}
};

}  // namespace pstwin
