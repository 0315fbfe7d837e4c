// MetricsSinks for real runs, where nodes do not share the scheduler's recorder.
#pragma once

#include <mutex>
#include <string>

#include "runtime/metrics.h"

namespace pstwin::net {

/// Forwards to another sink under a mutex: the nodes of an in-process job share the scheduler's
/// recorder this way.
class LockedSink : public MetricsSink {
 public:
  LockedSink(MetricsSink& inner, std::mutex& mutex) : inner_(inner), mutex_(mutex) {}
  void staleness(std::int64_t s, std::uint64_t count) override;
  void updates_applied(std::uint64_t n) override;
  void bytes_to_servers(std::uint64_t bytes) override;
  void eval(EvalRow row) override;
  void event(double time_s, const std::string& type, nlohmann::json fields) override;
  void finish(const std::string& sha, bool diverged, const std::string& reason) override;
  void span(std::uint32_t node, std::string_view name, double start_s, double end_s) override;

 private:
  MetricsSink& inner_;
  std::mutex& mutex_;
};

/// Forwards to a sink set later (set()); until then, everything is dropped. The scheduler's
/// environment needs a sink from its start, its recorder exists once its data is read, and
/// nothing is measured in between (the rendezvous).
class DeferredSink : public MetricsSink {
 public:
  void set(MetricsSink* inner) { inner_ = inner; }
  void staleness(std::int64_t s, std::uint64_t count) override { if (inner_) inner_->staleness(s, count); }
  void updates_applied(std::uint64_t n) override { if (inner_) inner_->updates_applied(n); }
  void bytes_to_servers(std::uint64_t bytes) override { if (inner_) inner_->bytes_to_servers(bytes); }
  void eval(EvalRow row) override { if (inner_) inner_->eval(row); }
  void event(double time_s, const std::string& type, nlohmann::json fields) override {
    if (inner_) inner_->event(time_s, type, std::move(fields));
  }
  void finish(const std::string& sha, bool diverged, const std::string& reason) override {
    if (inner_) inner_->finish(sha, diverged, reason);
  }
  void span(std::uint32_t node, std::string_view name, double start_s, double end_s) override {
    if (inner_) inner_->span(node, name, start_s, end_s);
  }

 private:
  MetricsSink* inner_ = nullptr;
};

/// For a server or worker process: its events go to stderr as JSON lines tagged with the node;
/// staleness and updates reach the scheduler inside snapshots, so they are ignored here.
class StderrEventSink : public MetricsSink {
 public:
  explicit StderrEventSink(std::string node) : node_(std::move(node)) {}
  void staleness(std::int64_t, std::uint64_t) override {}
  void updates_applied(std::uint64_t) override {}
  void bytes_to_servers(std::uint64_t) override {}
  void eval(EvalRow) override {}
  void event(double time_s, const std::string& type, nlohmann::json fields) override;
  void finish(const std::string&, bool, const std::string&) override {}

 private:
  std::string node_;
};

}  // namespace pstwin::net
