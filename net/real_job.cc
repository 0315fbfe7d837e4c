#include "net/real_job.h"

#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>

#include "kernels/select_backend.h"
#include "net/heartbeat_thread.h"
#include "net/inproc_env.h"
#include "net/node_sinks.h"
#include "net/tcp_address.h"
#include "runtime/checkpoint/dir_store.h"
#include "runtime/codec.h"
#include "runtime/job_resume.h"
#include "runtime/output/run_recorder.h"
#include "runtime/output/summary.h"
#include "runtime/roles/role_factory.h"
#include "runtime/roles/scheduler.h"

namespace pstwin::net {

namespace {

bool keeps_checkpoints(const JobSpec& spec) {
  return spec.fault.checkpoint_every_clocks > 0 || spec.fault.checkpoint_every_s > 0;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

nlohmann::json run_inproc_job(const Scenario& scenario, const ConsistencyVariant& variant,
                              const PreparedTraining& prepared, const std::string& dir,
                              double stall_timeout_s, const std::string& device,
                              const std::string& resume_from) {
  JobSpec spec = make_job_spec(scenario, variant, prepared);
  spec.stall_timeout_s = stall_timeout_s;
  if (!resume_from.empty()) spec.resume = load_resume_point(resume_from, spec);
  DirCheckpointStore checkpoints(dir + "/checkpoints");
  RunRecorder recorder(dir, scenario.training.target_metric, metric_goal(prepared));
  std::mutex recorder_mutex;
  InprocNetwork network(spec.layout.nodes());
  const auto start = std::chrono::steady_clock::now();

  // The first role to fail is the cause; the others then fail only because the job was aborted.
  std::mutex error_mutex;
  std::string first_error;
  std::vector<std::thread> threads;
  for (NodeId n = 0; n < spec.layout.nodes(); ++n) {
    threads.emplace_back([&, n] {
      LockedSink sink(recorder, recorder_mutex);
      InprocEnv env(network, spec.layout, n, scenario.seed, sink, start);
      if (keeps_checkpoints(spec)) env.set_checkpoints(&checkpoints);
      std::unique_ptr<HeartbeatThread> heartbeats;
      if (spec.fault.enabled && n != JobLayout::scheduler()) {
        Message beat;
        beat.header.type = MsgType::kHeartbeat;
        beat.header.sender = n;
        heartbeats = std::make_unique<HeartbeatThread>(
            spec.fault.heartbeat_interval_s,
            [&network, frame = encode(beat)] { network.deliver(JobLayout::scheduler(), frame); });
      }
      try {
        run_role(env, spec, n, *make_backend(device, nullptr));
      } catch (const std::exception& e) {
        {
          std::lock_guard lock(error_mutex);
          if (first_error.empty()) first_error = e.what();
        }
        network.abort();
      }
    });
  }
  for (auto& t : threads) t.join();

  RunFacts facts;
  facts.environment = "inproc";
  facts.iterations = spec.iterations;
  facts.time_s = facts.wall_time_s = seconds_since(start);
  facts.bytes_sent = network.bytes_sent();
  facts.messages_sent = network.messages_sent();
  facts.roles_finished = first_error.empty();
  facts.failure = first_error;
  recorder.flush();
  const auto summary = make_summary(scenario, variant, recorder, facts);
  write_summary(dir, summary);
  if (!summary["completed"].get<bool>())
    throw std::runtime_error(facts.failure);
  return summary;
}

nlohmann::json run_zmq_node(const Scenario& scenario, const ConsistencyVariant& variant,
                            const PreparedTraining& prepared, const NodeOptions& options) {
  JobSpec spec = make_job_spec(scenario, variant, prepared);
  spec.stall_timeout_s = options.stall_timeout_s;
  if (!options.resume_from.empty()) spec.resume = load_resume_point(options.resume_from, spec);
  const auto start = std::chrono::steady_clock::now();
  ZmqOptions zmq = options.zmq;
  zmq.max_range_keys = spec.num_keys();
  std::optional<DirCheckpointStore> checkpoints;
  if (keeps_checkpoints(spec) && !options.checkpoint_dir.empty()) checkpoints.emplace(options.checkpoint_dir);

  if (options.role == "scheduler") {
    RunRecorder recorder(options.out_dir, scenario.training.target_metric, metric_goal(prepared));
    zmq.bind_endpoint = options.scheduler_endpoint;
    ZmqEnv env(zmq, scenario.seed, recorder);
    if (checkpoints) env.set_checkpoints(&*checkpoints);
    if (options.on_listening) options.on_listening(env.endpoint());
    env.host_registration(spec.layout.servers, spec.layout.workers, options.connect_timeout_s);
    std::ofstream(options.out_dir + "/address_book.json")
        << nlohmann::json(env.address_book()).dump(2) << "\n";
    RunFacts facts;
    facts.environment = "zmq";
    facts.iterations = spec.iterations;
    auto kernels = make_backend(options.device, nullptr);
    Scheduler scheduler(env, spec, *kernels);
    try {
      scheduler.run();
      facts.roles_finished = true;
    } catch (const std::exception& e) {
      facts.failure = e.what();
    }
    if (spec.fault.enabled) env.abandon_unsent_to_peers();  // e.g. the stop sent to a dead node
    facts.time_s = env.now();
    facts.wall_time_s = seconds_since(start);
    // Each process counts its own traffic; the others reported theirs in their last messages
    // (their final reports themselves are not counted: a few hundred bytes).
    facts.bytes_sent = env.bytes_sent() + scheduler.reported_bytes_sent();
    facts.messages_sent = env.messages_sent();
    recorder.flush();
    auto summary = make_summary(scenario, variant, recorder, facts);
    summary["rejected_messages"] = env.rejected();
    write_summary(options.out_dir, summary);
    if (!facts.roles_finished) throw std::runtime_error(facts.failure);
    return summary;
  }
  if (options.role != "server" && options.role != "worker")
    throw std::invalid_argument("unknown role '" + options.role +
                                "' (expected scheduler, server or worker)");
  zmq.bind_endpoint = tcp_endpoint(options.bind_host, "*");
  StderrEventSink sink(options.role);
  ZmqEnv env(zmq, scenario.seed, sink);
  if (checkpoints) env.set_checkpoints(&*checkpoints);
  env.join(options.scheduler_endpoint, options.role, env.advertised(options.advertise_host),
           options.connect_timeout_s, options.index, options.rejoin);
  if (!(env.layout() == spec.layout))
    throw std::runtime_error("the scheduler's job has " + std::to_string(env.layout().servers) +
                             " servers and " + std::to_string(env.layout().workers) +
                             " workers, this node's scenario " + std::to_string(spec.layout.servers) +
                             " and " + std::to_string(spec.layout.workers) +
                             ": every node must run the same scenario");
  if (spec.fault.enabled) env.start_heartbeats(spec.fault.heartbeat_interval_s);
  run_role(env, spec, env.self(), *make_backend(options.device, nullptr), options.rejoin);
  env.stop_heartbeats();
  if (spec.fault.enabled) env.abandon_unsent_to_peers();
  if (env.rejected() > 0)
    std::cerr << "pstwin[node " << env.self() << "]: dropped " << env.rejected()
              << " invalid messages during the job\n";
  return nullptr;
}

}  // namespace pstwin::net
