#include "net/real_job.h"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <sstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>

#include "kernels/select_backend.h"
#include "net/heartbeat_thread.h"
#include "net/inproc_env.h"
#include "net/job_fingerprint.h"
#include "net/live_metrics.h"
#include "net/node_sinks.h"
#include "net/span_forwarding.h"
#include "net/stop_watch.h"
#include "net/straggler_hold.h"
#include "net/tcp_address.h"
#include "net/ucx_data_plane.h"
#include "runtime/checkpoint/dir_store.h"
#include "runtime/codec.h"
#include "runtime/errors.h"
#include "runtime/job_resume.h"
#include "runtime/wire_json.h"
#include "runtime/output/atomic_file.h"
#include "runtime/output/late_stop.h"
#include "runtime/output/run_recorder.h"
#include "runtime/output/summary.h"
#include "runtime/roles/role_factory.h"
#include "runtime/roles/scheduler.h"
#include "runtime/count_text.h"

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
                              const std::string& resume_from, const StopRequest* stop) {
  JobSpec spec = make_job_spec(scenario, variant, prepared);
  spec.stall_timeout_s = stall_timeout_s;
  if (!resume_from.empty()) spec.resume = load_resume_point(resume_from, spec);
  DirCheckpointStore checkpoints(dir + "/checkpoints");
  RunRecorder recorder(dir, scenario.training.target_metric, metric_goal(prepared));
  TraceRecorder trace(spec.layout);
  recorder.set_trace(&trace);
  std::mutex recorder_mutex;
  InprocNetwork network(spec.layout.nodes());
  const auto start = std::chrono::steady_clock::now();

  // The first role to fail is the cause; the others then fail only because the job was aborted.
  std::mutex error_mutex;
  std::string first_error;
  bool stopped = false;  // from outside: the scheduler threw JobStopped
  std::vector<std::thread> threads;
  std::vector<double> worker_compute_s(spec.layout.workers, 0.0);  // each thread writes its own
  for (NodeId n = 0; n < spec.layout.nodes(); ++n) {
    threads.emplace_back([&, n] {
      LockedSink sink(recorder, recorder_mutex);
      InprocEnv env(network, spec.layout, n, scenario.seed, sink, start);
      if (keeps_checkpoints(spec)) env.set_checkpoints(&checkpoints);
      if (spec.layout.is_worker(n))
        env.set_straggler_hold(std::make_unique<StragglerHold>(
            scenario.stragglers, spec.layout.worker_index(n), scenario.seed));
      std::unique_ptr<HeartbeatThread> heartbeats;
      if (spec.fault.enabled && n != JobLayout::scheduler()) {
        Message beat;
        beat.header.type = MsgType::kHeartbeat;
        beat.header.sender = n;
        beat.header.receiver = JobLayout::scheduler();
        heartbeats = std::make_unique<HeartbeatThread>(
            spec.fault.heartbeat_interval_s,
            [&network, beat] { network.deliver(JobLayout::scheduler(), beat); });
      }
      try {
        run_role(env, spec, n, *make_backend(device, nullptr));
        if (spec.layout.is_worker(n)) worker_compute_s[spec.layout.worker_index(n)] = env.compute_s();
      } catch (const std::exception& e) {
        {
          std::lock_guard lock(error_mutex);
          if (first_error.empty()) {
            first_error = e.what();
            stopped = dynamic_cast<const JobStopped*>(&e) != nullptr;
          }
        }
        network.abort();
      }
    });
  }
  {
    const StopWatch watch(stop, [&network](const std::string& why) { network.stop(why); });
    for (auto& t : threads) t.join();
  }

  RunFacts facts;
  facts.environment = "inproc";
  facts.iterations = spec.iterations;
  facts.time_s = facts.wall_time_s = seconds_since(start);
  facts.bytes_sent = network.bytes_sent();
  facts.messages_sent = network.messages_sent();
  facts.worker_compute_s = worker_compute_s;
  facts.roles_finished = first_error.empty();
  facts.failure = first_error;
  if (stopped && stop) facts.stopped_by = stop->signal_name();
  recorder.flush();
  trace.write(dir + "/trace.json", "wall");
  auto summary = make_summary(scenario, variant, recorder, facts);
  // A stop after the scheduler returned, while the outputs were written: said, not lost.
  if (stop && stop->reason()) note_stop_after_completion(summary, recorder, facts.time_s, *stop->reason());
  write_summary(dir, summary);
  if (stopped) throw JobStopped(facts.failure);
  if (!summary["completed"].get<bool>())
    throw std::runtime_error(facts.failure);
  return summary;
}

namespace {

nlohmann::json shape_json(const ModelShape& shape) {
  return {{"features", shape.features}, {"classes", shape.classes}, {"users", shape.users},
          {"items", shape.items}, {"train_mean", shape.train_mean}, {"train_rows", shape.train_rows},
          {"key_accesses", shape.key_accesses}};
}

/// The model shape of an address book; ProtocolError naming the field when it is not one (each
/// count an integer that fits, runtime/wire_json.h).
ModelShape shape_from_json(const nlohmann::json& j) {
  const std::string what = "kAddressBook from node 0: model shape";
  if (!j.is_object()) throw ProtocolError(what + " must be an object");
  ModelShape shape;
  shape.features = wire_json::integer_member<std::size_t>(j, "features", what);
  shape.classes = wire_json::integer_member<std::size_t>(j, "classes", what);
  shape.users = wire_json::integer_member<std::size_t>(j, "users", what);
  shape.items = wire_json::integer_member<std::size_t>(j, "items", what);
  shape.train_mean = wire_json::number_member(j, "train_mean", what);
  shape.train_rows = wire_json::integer_member<std::size_t>(j, "train_rows", what);
  shape.key_accesses = wire_json::integer_list<std::uint64_t>(j, "key_accesses", what);
  return shape;
}

/// "server:1", "worker:3" or "scheduler".
std::string node_name(const JobLayout& layout, NodeId id) {
  if (id == JobLayout::scheduler()) return "scheduler";
  return id <= layout.servers ? "server:" + std::to_string(id - 1)
                              : "worker:" + std::to_string(id - 1 - layout.servers);
}

/// Reads what `role` needs and says so on stderr in one line (how many rows, how long), so that
/// a slow start is visible and a server's "no data" can be checked.
PreparedTraining read_node_data(const Scenario& scenario, const std::string& role, bool quiet) {
  const NodeData what = role == "scheduler" ? NodeData::kAll
                        : role == "worker"  ? NodeData::kTraining
                                            : NodeData::kNone;
  const auto start = std::chrono::steady_clock::now();
  std::size_t rows = 0;
  PreparedTraining p = prepare_node_data(scenario, what, &rows);
  if (!quiet) {
    std::ostringstream line;
    line << "pstwin node " << role << ": ";
    if (what == NodeData::kNone || scenario.model.type == "synthetic")
      line << "reads no data (the model's shape comes from the scheduler)\n";
    else
      line << "read " << count_text(rows, what == NodeData::kAll ? "training and test row" : "training row")
           << " in " << std::fixed << std::setprecision(1) << seconds_since(start) << " s\n";
    std::cerr << line.str() << std::flush;
  }
  return p;
}

/// A GPU worker's gradients reach the Env in host memory (Message values are host vectors), so
/// UCX sends them from there whatever it supports; said once, with what this UCX could do.
void say_ucx_memory(const UcxDataPlane& ucx, const std::string& device) {
  if (device != "cuda") return;
  std::cerr << "pstwin node: UCX (" << ucx.transports() << ") "
            << (ucx.supports_cuda_memory() ? "can send from CUDA memory, but " : "was built without CUDA support: ")
            << "GPU gradients are staged through host memory\n";
}

/// Prints "pstwin node worker:3: clock 120 of 1000, 24.0 clocks/s, 3.2 MB sent" every
/// interval_s seconds from its own thread, reading only the environment's atomic counters.
std::unique_ptr<HeartbeatThread> progress_lines(const ZmqEnv& env, const std::string& name,
                                                std::uint64_t iterations, double interval_s) {
  if (interval_s <= 0) return nullptr;
  return std::make_unique<HeartbeatThread>(
      interval_s, [&env, name, iterations, interval_s, last = std::int64_t{0}]() mutable {
        const std::int64_t clock = std::max<std::int64_t>(env.progress_clock(), 0);
        std::ostringstream line;
        line << "pstwin node " << name << ": clock " << clock << " of " << iterations << ", "
             << std::fixed << std::setprecision(1) << static_cast<double>(clock - last) / interval_s
             << " clocks/s, " << static_cast<double>(env.progress_bytes()) / 1e6 << " MB sent\n";
        last = clock;
        std::cerr << line.str() << std::flush;
      });
}

}  // namespace

std::string listen_endpoint(const NodeOptions& options) {
  if (options.role != "scheduler") return tcp_endpoint(options.bind_host, "*");
  if (options.bind_host.empty()) return options.scheduler_endpoint;
  return tcp_endpoint(options.bind_host, parse_tcp_endpoint(options.scheduler_endpoint).port);
}

nlohmann::json run_zmq_node(const Scenario& scenario, const ConsistencyVariant& variant,
                            const NodeOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  ZmqOptions zmq = options.zmq;
  nlohmann::json job = job_description(scenario, variant.name);
  if (zmq.ucx) job["transport"] = "ucx";  // every node must run it (ZeroMQ jobs' fingerprints unchanged)
  const nlohmann::json fingerprint = job_fingerprint(job);
  PreparedTraining prepared;
  JobSpec spec;
  std::optional<DirCheckpointStore> checkpoints;
  // The spec, once the model exists: on the scheduler after reading its data, elsewhere after the
  // address book brought the model's shape.
  auto make_spec = [&] {
    spec = make_job_spec(scenario, variant, prepared);
    spec.stall_timeout_s = options.stall_timeout_s;
    if (!options.resume_from.empty()) spec.resume = load_resume_point(options.resume_from, spec);
    if (keeps_checkpoints(spec) && !options.checkpoint_dir.empty()) checkpoints.emplace(options.checkpoint_dir);
  };

  if (options.role == "scheduler") {
    DeferredSink deferred;  // the recorder exists once the data says which metric to record
    LiveMetrics sink(deferred, JobLayout{scenario.cluster.servers, scenario.cluster.workers});
    std::optional<MetricsHttpServer> http;
    if (!options.metrics_address.empty()) {
      http.emplace(options.metrics_address, [&sink] { return sink.text(); });
      if (options.on_metrics) options.on_metrics(http->url());
    }
    std::optional<RunRecorder> recorder;
    TraceRecorder trace(JobLayout{scenario.cluster.servers, scenario.cluster.workers});
    zmq.bind_endpoint = listen_endpoint(options);
    zmq.ucx = false;  // under --transport ucx the scheduler still speaks ZeroMQ only
    ZmqEnv env(zmq, scenario.seed, sink);
    if (options.on_listening) options.on_listening(env.endpoint());
    RendezvousRules rules;
    rules.connect_timeout_s = options.connect_timeout_s;
    rules.ready_timeout_s = options.stall_timeout_s;
    rules.fingerprint = fingerprint;
    rules.joining_servers = static_cast<std::uint32_t>(std::count_if(
        scenario.failures.begin(), scenario.failures.end(),
        [](const FailureSpec& f) { return f.kind == FailureSpec::Kind::kJoin; }));
    rules.prepare = [&] {
      prepared = read_node_data(scenario, "scheduler", options.quiet);
      make_spec();
      recorder.emplace(options.out_dir, scenario.training.target_metric, metric_goal(prepared));
      recorder->set_trace(&trace);
      deferred.set(&*recorder);
      return shape_json(prepared.shape);
    };
    const auto layout = JobLayout{scenario.cluster.servers, scenario.cluster.workers};
    try {
      env.host_registration(layout.servers, layout.workers, rules);
    } catch (const std::exception& e) {
      // The job never started: its summary says so, as a failed simulated run's does.
      if (!recorder) recorder.emplace(options.out_dir, scenario.training.target_metric);
      RunFacts facts;
      facts.environment = options.zmq.ucx ? "ucx" : "zmq";
      facts.wall_time_s = seconds_since(start);
      facts.failure = e.what();
      const bool stopped = dynamic_cast<const JobStopped*>(&e) != nullptr;
      if (stopped) {
        facts.failure = std::string("the scheduler was ") + e.what() + " before the job started";
        if (options.zmq.stop) facts.stopped_by = options.zmq.stop->signal_name();
        recorder->event(env.now(), "job_stopped", {{"reason", e.what()}, {"clock", 0}});
      }
      recorder->flush();
      nlohmann::json summary;
      if (stopped) {
        // Stopped during the rendezvous: no clock ran, so it reads "before it started" and has
        // no figures, as a variant never begun does (cli/run_status.h), not "at 0%" with
        // figures of zero (a trial's table showed 0 updates and 0 s beside the others' "-").
        summary = unfinished_summary(scenario, variant, facts.environment, facts.failure, facts.stopped_by);
        summary["started"] = false;
      } else {
        summary = make_summary(scenario, variant, *recorder, facts);
      }
      write_summary(options.out_dir, summary);
      if (stopped) throw JobStopped(facts.failure);
      throw;
    }
    env.set_max_range_keys(spec.num_keys());
    if (checkpoints) env.set_checkpoints(&*checkpoints);
    // The launcher reads it to find the nodes it kills and restarts: never half of it.
    write_file_atomically(options.out_dir + "/address_book.json",
                          nlohmann::json(env.address_book()).dump(2) + "\n");
    RunFacts facts;
    facts.environment = options.zmq.ucx ? "ucx" : "zmq";
    facts.iterations = spec.iterations;
    auto kernels = make_backend(options.device, nullptr);
    ObservedEnv observed(env, sink);  // heartbeats and the clock for the live metrics
    Scheduler scheduler(observed, spec, *kernels);
    const auto progress = progress_lines(env, "scheduler", spec.iterations, options.progress_interval_s);
    bool stopped = false;  // from outside (a signal): the nodes told to stop may be gone too
    env.start_cpu_meter();
    try {
      scheduler.run();
      facts.roles_finished = true;
    } catch (const JobStopped& e) {
      facts.failure = e.what();
      stopped = true;
      if (options.zmq.stop) facts.stopped_by = options.zmq.stop->signal_name();
    } catch (const std::exception& e) {
      facts.failure = e.what();
    }
    // E.g. the stop sent to a dead node, or to nodes a signal already ended.
    if (spec.fault.enabled || stopped || scheduler.stopped_after_completion()) env.abandon_unsent_to_peers();
    facts.time_s = env.now();
    facts.wall_time_s = seconds_since(start);
    // Each process counts its own traffic; the others reported theirs in their last messages
    // (their final reports themselves are not counted: a few hundred bytes).
    facts.bytes_sent = env.bytes_sent() + scheduler.reported_bytes_sent();
    facts.worker_compute_s = scheduler.reported_compute_s();
    facts.messages_sent = env.messages_sent();
    recorder->flush();
    trace.write(options.out_dir + "/trace.json", "wall");
    auto summary = make_summary(scenario, variant, *recorder, facts);
    // A stop after the scheduler returned, while the outputs were written: said, not lost.
    if (options.zmq.stop && options.zmq.stop->reason())
      note_stop_after_completion(summary, *recorder, env.now(), *options.zmq.stop->reason());
    summary["rejected_messages"] = env.rejected();
    write_summary(options.out_dir, summary);
    if (stopped) throw JobStopped(facts.failure);
    if (!facts.roles_finished) throw std::runtime_error(facts.failure);
    return summary;
  }
  if (options.role != "server" && options.role != "worker")
    throw std::invalid_argument("unknown role '" + options.role +
                                "' (expected scheduler, server or worker)");
  zmq.bind_endpoint = listen_endpoint(options);
  // A job that survives failures needs to hear of a dead peer; one that does not is faster over
  // shared memory, which cannot tell (UcxDataPlane).
  zmq.ucx_peer_failures = scenario.fault_tolerance.enabled;
  StderrEventSink sink(options.role);
  ZmqEnv env(zmq, scenario.seed, sink);
  if (env.ucx()) say_ucx_memory(*env.ucx(), options.device);
  const std::string address = env.advertised(options.advertise_host);
  // A node registers as it starts and reads its data afterwards, while the scheduler waits for
  // everyone: the connect timeout covers starting processes, not reading data. A restarted node
  // reads first: its job is running and wants it back at once.
  if (options.rejoin || options.join) {
    prepared = read_node_data(scenario, options.role, options.quiet);
    env.register_node(options.scheduler_endpoint, options.role, address, options.connect_timeout_s,
                      options.index, options.rejoin, fingerprint, options.join);
  } else {
    env.register_node(options.scheduler_endpoint, options.role, address, options.connect_timeout_s,
                      options.index, false, fingerprint);
    try {
      prepared = read_node_data(scenario, options.role, options.quiet);
    } catch (const std::exception& e) {
      env.report_not_ready(e.what());
      throw;
    }
    env.await_address_book(options.stall_timeout_s);
  }
  if (scenario.model.type != "synthetic") build_model(scenario, shape_from_json(env.job_model_shape()), prepared);
  make_spec();
  env.set_max_range_keys(spec.num_keys());
  if (checkpoints) env.set_checkpoints(&*checkpoints);
  if (options.role == "worker")
    env.set_straggler_hold(std::make_unique<StragglerHold>(
        scenario.stragglers, env.layout().worker_index(env.self()), scenario.seed));
  if (!(env.layout() == spec.layout))
    throw std::runtime_error("the scheduler's job has " + std::to_string(env.layout().servers) +
                             " servers and " + std::to_string(env.layout().workers) +
                             " workers, this node's scenario " + std::to_string(spec.layout.servers) +
                             " and " + std::to_string(spec.layout.workers) +
                             ": every node must run the same scenario");
  if (spec.fault.enabled) env.start_heartbeats(spec.fault.heartbeat_interval_s);
  const auto progress = progress_lines(env, node_name(env.layout(), env.self()), spec.iterations,
                                       options.progress_interval_s);
  SpanForwardingEnv traced(env);  // the node's spans go to the scheduler's trace.json
  env.start_cpu_meter();
  // A joining server starts as a restarted one does: holding nothing until the ring hands it blocks.
  run_role(traced, spec, env.self(), *make_backend(options.device, nullptr), options.rejoin || options.join);
  // After a worker's kWorkerDone, a server's final snapshot, or a stop: the scheduler of a
  // stopped job waits for this to count the clocks done (ZmqEnv::recv_after_stop).
  traced.flush_spans(/*last=*/true);
  env.stop_heartbeats();
  if (spec.fault.enabled || (options.stopped && options.stopped())) env.abandon_unsent_to_peers();
  if (env.rejected() > 0)
    std::cerr << "pstwin[node " << env.self() << "]: dropped " << env.rejected()
              << " invalid messages during the job\n";
  return nullptr;
}

}  // namespace pstwin::net
