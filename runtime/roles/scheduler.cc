#include "runtime/roles/scheduler.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include <openssl/evp.h>

#include "runtime/errors.h"

namespace pstwin {

Scheduler::Scheduler(Env& env, const JobSpec& spec, KernelBackend& kernels)
    : env_(env), spec_(spec), kernels_(kernels) {}

std::string Scheduler::params_sha256(const std::vector<float>& params) {
  // Little-endian float32 bytes in key order; this machine's order is little-endian, asserted
  // at compile time below rather than converted at run time.
  static_assert(sizeof(float) == 4);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(params.data(), params.size() * sizeof(float), digest, &len, EVP_sha256(), nullptr);
  std::string hex;
  char buf[3];
  for (unsigned int i = 0; i < len; ++i) {
    std::snprintf(buf, sizeof buf, "%02x", digest[i]);
    hex += buf;
  }
  return hex;
}

void Scheduler::start_job() {
  const std::uint64_t n = spec_.num_parameters();
  const std::uint64_t w = spec_.values_per_key();  // floats per key: ranges count keys
  ranges_ = range_partition(spec_.num_keys(), spec_.layout.servers);
  std::vector<float> init;
  if (!spec_.synthetic) {
    init.assign(n, 0.0f);
    spec_.model->init(init.data(), env_.rng());
  }
  for (std::uint32_t s = 0; s < spec_.layout.servers; ++s) {
    Message m;
    m.header.type = MsgType::kStart;
    m.header.shard = s;
    m.keys = {ranges_[s].begin};
    m.lengths = {static_cast<std::uint32_t>(ranges_[s].size())};
    if (spec_.synthetic)
      m.virtual_values = ranges_[s].size();
    else
      m.values.assign(init.begin() + static_cast<long>(ranges_[s].begin * w),
                      init.begin() + static_cast<long>(ranges_[s].end * w));
    env_.send(spec_.layout.server(s), std::move(m));
  }
  for (std::uint32_t w = 0; w < spec_.layout.workers; ++w) {
    Message m;
    m.header.type = MsgType::kStart;
    for (std::uint32_t s = 0; s < spec_.layout.servers; ++s) {
      m.keys.push_back(s);
      m.lengths.push_back(static_cast<std::uint32_t>(ranges_[s].size()));
    }
    env_.send(spec_.layout.worker(w), std::move(m));
  }
}

void Scheduler::run() {
  worker_finished_.assign(spec_.layout.workers, false);
  for (const auto& r : range_partition(spec_.num_keys(), spec_.layout.servers))
    if (r.size() > 0xffffffffULL)
      throw std::invalid_argument("a server's key range exceeds 2^32 keys; add servers");
  start_job();
  std::uint32_t workers_done = 0;
  std::uint32_t finals = 0;
  final_.params.assign(spec_.synthetic ? 0 : spec_.num_parameters(), 0.0f);
  std::int64_t final_clock = 0;
  while (finals < spec_.layout.servers) {
    auto m = env_.recv(spec_.stall_timeout_s);
    if (!m)
      throw std::runtime_error("scheduler: nothing received for " +
                               std::to_string(spec_.stall_timeout_s) +
                               " s; a role is stuck or gone");
    switch (m->header.type) {
      case MsgType::kSnapshot:
        absorb_staleness(*m);
        if (m->header.flags & msg_flags::kFinal) {
          absorb_traffic_report(*m);
          const KeyRange& r = ranges_.at(spec_.layout.server_index(m->header.sender));
          if (!spec_.synthetic) {
            if (m->values.size() != r.size() * spec_.values_per_key())
              throw ProtocolError("scheduler: final snapshot size does not match its range");
            std::copy(m->values.begin(), m->values.end(),
                      final_.params.begin() + static_cast<long>(r.begin * spec_.values_per_key()));
          }
          final_clock = finals == 0 ? m->header.clock : std::min(final_clock, m->header.clock);
          final_.time_s = std::max(final_.time_s, snapshot_time(*m));
          ++finals;
        } else if (!diverged_) {
          // Snapshots still in flight when the workers finished are evaluated too.
          handle_snapshot(*m);
        }
        break;
      case MsgType::kWorkerDone:
        absorb_traffic_report(*m);
        worker_finished_.at(spec_.layout.worker_index(m->header.sender)) = true;
        if (++workers_done == spec_.layout.workers && !stopping_) stop_all(false);
        break;
      case MsgType::kAbort:
        if (!stopping_) {
          diverged_ = true;
          reason_ = "training diverged: worker " +
                    std::to_string(spec_.layout.worker_index(m->header.sender)) +
                    " saw a non-finite mini-batch loss at clock " +
                    std::to_string(m->header.clock);
          env_.metrics().event(env_.now(), "diverged",
                               {{"worker", spec_.layout.worker_index(m->header.sender)},
                                {"clock", m->header.clock}});
          stop_all(true);
        }
        break;
      default:
        throw ProtocolError("scheduler: unexpected " +
                            std::string(msg_type_name(m->header.type)) + " from node " +
                            std::to_string(m->header.sender));
    }
  }
  if (!diverged_ && final_clock != last_eval_clock_ &&
      !evaluate(final_clock, final_.params, final_.time_s)) {
    diverged_ = true;
    reason_ = "training diverged: non-finite loss at the final clock " + std::to_string(final_clock);
    env_.metrics().event(env_.now(), "diverged", {{"clock", final_clock}});
  }
  env_.metrics().finish(params_sha256(final_.params), diverged_, reason_);
}

void Scheduler::absorb_traffic_report(const Message& m) {
  if (m.data.empty()) return;
  try {
    reported_bytes_sent_ += nlohmann::json::parse(m.data).at("bytes_sent").get<std::uint64_t>();
  } catch (const nlohmann::json::exception& e) {
    throw ProtocolError("scheduler: bad traffic report from node " +
                        std::to_string(m.header.sender) + ": " + e.what());
  }
}

double Scheduler::snapshot_time(const Message& m) {
  return static_cast<double>(m.header.request_id) * 1e-6;
}

void Scheduler::absorb_staleness(const Message& m) {
  if (m.keys.size() != m.lengths.size())
    throw ProtocolError("scheduler: snapshot staleness histogram has " +
                        std::to_string(m.keys.size()) + " values but " +
                        std::to_string(m.lengths.size()) + " counts");
  std::uint64_t applied = 0;
  for (std::size_t i = 0; i < m.keys.size(); ++i) {
    env_.metrics().staleness(static_cast<std::int64_t>(m.keys[i]), m.lengths[i]);
    applied += m.lengths[i];
  }
  // Every shard applies every gradient; shard 0's count is the job's count of updates.
  if (m.header.shard == 0) env_.metrics().updates_applied(applied);
}

void Scheduler::handle_snapshot(const Message& m) {
  const std::int64_t clock = m.header.clock;
  Assembly& a = assemblies_[clock];
  if (!spec_.synthetic) {
    if (a.params.empty()) a.params.assign(spec_.num_parameters(), 0.0f);
    const KeyRange& r = ranges_.at(spec_.layout.server_index(m.header.sender));
    const std::uint64_t w = spec_.values_per_key();
    if (m.values.size() != r.size() * w)
      throw ProtocolError("scheduler: snapshot size does not match its range");
    std::copy(m.values.begin(), m.values.end(), a.params.begin() + static_cast<long>(r.begin * w));
  }
  a.time_s = std::max(a.time_s, snapshot_time(m));
  if (++a.shards < spec_.layout.servers) return;
  std::vector<float> params = std::move(a.params);
  const double time_s = a.time_s;
  assemblies_.erase(clock);
  if (!evaluate(clock, params, time_s)) {
    diverged_ = true;
    reason_ = "training diverged: non-finite loss at global clock " + std::to_string(clock);
    env_.metrics().event(env_.now(), "diverged", {{"clock", clock}});
    stop_all(true);
  }
}

bool Scheduler::evaluate(std::int64_t clock, const std::vector<float>& params, double time_s) {
  last_eval_clock_ = clock;
  EvalRow row;
  row.time_s = time_s;
  row.clock = clock;
  if (spec_.synthetic) {
    row.train_loss = row.test_loss = row.test_metric = std::nan("");
    env_.metrics().eval(row);
    return true;
  }
  const double reg = spec_.model->regularizer(params.data());
  LossStats train;
  spec_.model->evaluate(kernels_, *spec_.train,
                        RowSelection{spec_.train_eval_rows.data(), spec_.train_eval_rows.size()},
                        params.data(), &train);
  std::vector<std::uint32_t> all(spec_.test->rows);
  for (std::uint32_t i = 0; i < all.size(); ++i) all[i] = i;
  LossStats test;
  spec_.model->evaluate(kernels_, *spec_.test, RowSelection{all.data(), all.size()},
                        params.data(), &test);
  row.train_loss = train.count ? train.loss_sum / static_cast<double>(train.count) + reg : reg;
  row.test_loss = test.count ? test.loss_sum / static_cast<double>(test.count) + reg : reg;
  row.test_metric = spec_.model->metric(test);  // accuracy, or RMSE for mf
  const bool finite = std::isfinite(row.train_loss) && std::isfinite(row.test_loss);
  if (finite) env_.metrics().eval(row);
  return finite;
}

void Scheduler::stop_all(bool include_workers) {
  stopping_ = true;
  if (include_workers) assemblies_.clear();  // diverged: nothing more is worth evaluating
  // Each node is told once: a node that already stopped, or a worker that finished, is gone,
  // and on a real network a send to it would wait out the send timeout.
  if (!servers_stopped_) {
    servers_stopped_ = true;
    for (std::uint32_t s = 0; s < spec_.layout.servers; ++s) {
      Message m;
      m.header.type = MsgType::kStop;
      // A normal stop lets each server first take the pushes still in flight to it; a stop for
      // divergence (or any abort) is immediate.
      if (include_workers) m.header.flags = msg_flags::kDiverged;
      env_.send(spec_.layout.server(s), std::move(m));
    }
  }
  if (!include_workers) return;
  for (std::uint32_t w = 0; w < spec_.layout.workers; ++w) {
    if (worker_finished_[w]) continue;
    worker_finished_[w] = true;
    Message m;
    m.header.type = MsgType::kStop;
    env_.send(spec_.layout.worker(w), std::move(m));
  }
}

}  // namespace pstwin
