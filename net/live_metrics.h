// Live metrics of a launched job's scheduler, in Prometheus's text exposition format, served
// over HTTP while the job runs (README, "Watching a launched job").
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runtime/env.h"
#include "runtime/job_layout.h"
#include "runtime/metrics.h"

namespace httplib {
class Server;
}

namespace pstwin::net {

/// The MetricsSink of a ZeroMQ job's scheduler: forwards everything to `inner` and keeps, for
/// text(), what the scheduler hears as the job runs: gradients applied and their staleness (from
/// the servers' snapshots), the global clock and test metric of each evaluation, and from the
/// nodes' spans (net/span_forwarding.h, sent every kSpanFlushInterval_s at least) each worker's
/// clock and pushes and each server's pushes applied and pulls served, plus heartbeats per node
/// (note_heartbeat) and bytes sent (note_bytes). Thread-safe: the scheduler's thread reports,
/// an HTTP thread reads text().
class LiveMetrics : public MetricsSink {
 public:
  LiveMetrics(MetricsSink& inner, JobLayout layout);

  void staleness(std::int64_t staleness, std::uint64_t count) override;
  void updates_applied(std::uint64_t n) override;
  void eval(EvalRow row) override;
  void event(double time_s, const std::string& type, nlohmann::json fields) override;
  void bytes_to_servers(std::uint64_t bytes) override;
  void finish(const std::string& sha, bool diverged, const std::string& reason) override;
  void span(std::uint32_t node, std::string_view name, double start_s, double end_s) override;

  /// Node `node` sent a heartbeat at job time `time_s` (seconds).
  void note_heartbeat(std::uint32_t node, double time_s);
  /// The scheduler has sent `bytes` so far; a node reported `bytes` sent so far.
  void note_bytes(std::uint32_t node, std::uint64_t bytes);
  /// The job clock now, for ages (seconds since a node's last heartbeat).
  void note_time(double time_s);

  /// Every metric in Prometheus's text exposition format 0.0.4 (# HELP, # TYPE, one sample a
  /// line; labels node="worker:3"): pstwin_worker_clock, pstwin_worker_pushes_total,
  /// pstwin_server_pushes_applied_total, pstwin_server_pulls_served_total,
  /// pstwin_updates_applied_total, pstwin_staleness_{sum,count}, pstwin_staleness_max,
  /// pstwin_global_clock, pstwin_test_metric, pstwin_bytes_to_servers_total,
  /// pstwin_node_bytes_sent_total, pstwin_heartbeats_total, pstwin_heartbeat_age_seconds,
  /// pstwin_job_time_seconds, pstwin_spans_total.
  std::string text() const;

 private:
  std::string node(std::uint32_t n) const;

  MetricsSink& inner_;
  JobLayout layout_;
  mutable std::mutex mutex_;
  std::vector<std::uint64_t> computes_, pushes_, applied_, served_, heartbeats_, bytes_, spans_;
  std::vector<double> last_heartbeat_s_;
  std::uint64_t updates_ = 0, staleness_count_ = 0, bytes_to_servers_ = 0;
  double staleness_sum_ = 0, test_metric_ = 0, now_s_ = 0;
  std::int64_t staleness_max_ = 0, global_clock_ = -1;
};

/// The scheduler's Env as its role sees it: `inner` in every respect, and each message the role
/// receives is noted in `live` (heartbeats per node, the job's clock, the scheduler's bytes sent).
class ObservedEnv : public Env {
 public:
  ObservedEnv(Env& inner, LiveMetrics& live) : inner_(inner), live_(live) {}
  NodeId self() const override { return inner_.self(); }
  void send(NodeId to, Message msg) override { inner_.send(to, std::move(msg)); }
  std::optional<Message> recv(double timeout_s) override;
  double now() const override { return inner_.now(); }
  void sleep(double seconds) override { inner_.sleep(seconds); }
  void account(const Cost& cost) override { inner_.account(cost); }
  Rng& rng() override { return inner_.rng(); }
  MetricsSink& metrics() override { return inner_.metrics(); }
  std::uint64_t bytes_sent() const override { return inner_.bytes_sent(); }
  double compute_s() const override { return inner_.compute_s(); }
  std::optional<CpuUse> cpu_use() const override { return inner_.cpu_use(); }
  CheckpointStore* checkpoints() override { return inner_.checkpoints(); }
  // Forwarded, or the node's spare values would never be fed: every large message received
  // would then take a fresh allocation (DESIGN.md, "The hot path").
  std::vector<float> reusable_values(std::size_t n) override { return inner_.reusable_values(n); }
  void recycle_values(std::vector<float> values) override { inner_.recycle_values(std::move(values)); }
  std::optional<Message> recv_after_stop(double timeout_s) override { return inner_.recv_after_stop(timeout_s); }

 private:
  Env& inner_;
  LiveMetrics& live_;
};

/// Serves GET /metrics (text/plain; version=0.0.4) from a thread of its own while it lives.
class MetricsHttpServer {
 public:
  /// Listens at `address`, "HOST:PORT" ("127.0.0.1:9464", "[::1]:0", "0.0.0.0:9464"; port 0:
  /// any free one). Throws std::invalid_argument naming the address and what is wrong when it is
  /// not one (no port, a port outside 0-65535, an empty host), std::runtime_error when nothing
  /// can listen there (taken, no such interface).
  MetricsHttpServer(const std::string& address, std::function<std::string()> render);
  ~MetricsHttpServer();
  MetricsHttpServer(const MetricsHttpServer&) = delete;
  MetricsHttpServer& operator=(const MetricsHttpServer&) = delete;

  /// "http://HOST:PORT/metrics", the port resolved.
  const std::string& url() const { return url_; }

 private:
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  std::atomic<bool> listen_returned_{false};  ///< set by thread_ when listening ends
  std::string url_;
};

/// Splits "HOST:PORT" ("[v6]:PORT" for IPv6) into host and port; std::invalid_argument saying
/// what is wrong otherwise (no port, "[::1]" included; white space anywhere; an unbracketed
/// IPv6 host; a port outside 0-65535). Whether it can be served here: check_metrics_address_here. The default of --metrics-address is kDefaultMetricsAddress.
std::pair<std::string, int> parse_metrics_address(const std::string& address);
inline constexpr const char* kDefaultMetricsAddress = "127.0.0.1:0";

}  // namespace pstwin::net
