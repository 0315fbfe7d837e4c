// Spans of a launched job's servers and workers, gathered by the scheduler for trace.json
// (DESIGN.md, "Outputs").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/env.h"

namespace pstwin::net {

/// Spans per kEvent "trace_spans" message, and the most one node sends in a job (its later
/// spans are dropped and counted in its last batch's "dropped"): trace.json stays bounded. A
/// worker's "push" spans are sent past that bound (one per clock, some 30 bytes): the
/// scheduler counts the clocks the workers finished from them (a stopped job's progress).
inline constexpr std::size_t kSpansPerBatch = 256;
inline constexpr std::size_t kMaxForwardedSpans = 20'000;
/// A node's spans are also sent this often (seconds of the job's clock), full batch or not.
inline constexpr double kSpanFlushInterval_s = 0.5;

/// The Env a server or worker process runs its role in: `inner` (the node's ZmqEnv) in every
/// respect but two. metrics().span() keeps the span and sends the node's spans to the scheduler
/// in batches of kSpansPerBatch, as kEvent messages {"type": "trace_spans", "time_s", "spans":
/// [[name, start_s, end_s], ...], "dropped": n, "bytes_sent": the node's so far}, also every
/// kSpanFlushInterval_s; and a worker's kWorkerDone or a server's final
/// kSnapshot first sends what is still kept, so that every span reaches the scheduler before the
/// message that ends the node's part of the job (a pair's messages arrive in order). Once the
/// role has returned, flush_spans(true) sends the node's last batch, marked "last": true (empty
/// or not): a role told to stop (a stopped job) sends no kWorkerDone, and the scheduler winding
/// down after a stop waits for these to count every clock the workers finished
/// (ZmqEnv::recv_after_stop). Everything else of metrics() goes to `inner`'s sink. Not
/// thread-safe, as ZmqEnv.
class SpanForwardingEnv : public Env {
 public:
  explicit SpanForwardingEnv(Env& inner) : inner_(inner), sink_(*this) {}

  NodeId self() const override { return inner_.self(); }
  void send(NodeId to, Message msg) override;
  std::optional<Message> recv(double timeout_s) override { return inner_.recv(timeout_s); }
  double now() const override { return inner_.now(); }
  void sleep(double seconds) override { inner_.sleep(seconds); }
  void account(const Cost& cost) override { inner_.account(cost); }
  Rng& rng() override { return inner_.rng(); }
  MetricsSink& metrics() override { return sink_; }
  std::uint64_t bytes_sent() const override { return inner_.bytes_sent(); }
  double compute_s() const override { return inner_.compute_s(); }
  std::optional<CpuUse> cpu_use() const override { return inner_.cpu_use(); }
  CheckpointStore* checkpoints() override { return inner_.checkpoints(); }
  // The spare values too: without these two a role's recycled vectors never reached the node's
  // transport, which then received every large message into fresh memory and copied it there.
  std::vector<float> reusable_values(std::size_t n) override { return inner_.reusable_values(n); }
  void recycle_values(std::vector<float> values) override { inner_.recycle_values(std::move(values)); }

  /// Sends the spans kept so far (nothing when none are, unless `last`: then the batch, empty
  /// or not, is marked as the node's last word). Throws what send throws.
  void flush_spans(bool last = false);

 private:
  class Sink : public MetricsSink {
   public:
    explicit Sink(SpanForwardingEnv& env) : env_(env) {}
    void staleness(std::int64_t s, std::uint64_t count) override { env_.inner_.metrics().staleness(s, count); }
    void updates_applied(std::uint64_t n) override { env_.inner_.metrics().updates_applied(n); }
    void eval(EvalRow row) override { env_.inner_.metrics().eval(row); }
    void event(double time_s, const std::string& type, nlohmann::json fields) override {
      env_.inner_.metrics().event(time_s, type, std::move(fields));
    }
    void bytes_to_servers(std::uint64_t bytes) override { env_.inner_.metrics().bytes_to_servers(bytes); }
    void finish(const std::string& sha, bool diverged, const std::string& reason) override {
      env_.inner_.metrics().finish(sha, diverged, reason);
    }
    void span(std::uint32_t node, std::string_view name, double start_s, double end_s) override;

   private:
    SpanForwardingEnv& env_;
  };

  Env& inner_;
  Sink sink_;
  nlohmann::json batch_ = nlohmann::json::array();
  std::size_t forwarded_ = 0;
  std::size_t dropped_ = 0;
  double last_flush_s_ = 0.0;
};

/// Scheduler side: hands the spans of a "trace_spans" event from node `from` (its fields, "time_s"
/// and "type" removed) to `metrics`.span(). Throws ProtocolError naming `what` and the field when
/// the event is malformed (no "spans" array, more than kSpansPerBatch of them, a span that is not
/// [string, number, number] with start <= end); nothing of a malformed event is kept.
void take_forwarded_spans(std::uint32_t from, const nlohmann::json& fields, MetricsSink& metrics,
                          const std::string& what);

/// Scheduler side: whether a "trace_spans" event's fields mark the node's last batch ("last":
/// true; absent: false). Throws ProtocolError naming `what` when "last" is not a boolean.
bool is_last_batch(const nlohmann::json& fields, const std::string& what);

}  // namespace pstwin::net
