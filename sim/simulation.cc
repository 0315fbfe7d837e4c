#include "sim/simulation.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>

#include <simgrid/s4u.hpp>
#include <xbt/log.h>

#include "kernels/select_backend.h"
#include "runtime/output/run_recorder.h"
#include "runtime/output/summary.h"
#include "runtime/roles/cpu_report.h"
#include "runtime/roles/role_factory.h"
#include "sim/fault_injection.h"
#include "sim/link_load.h"
#include "sim/nic_window.h"
#include "sim/platform.h"
#include "sim/sim_env.h"
#include "sim/simgrid_options.h"
#include "sim/stragglers.h"
#include "runtime/count_text.h"

namespace sg4 = simgrid::s4u;

namespace pstwin {

namespace {

// Random failures (MTBF) are drawn up to this simulated time: far beyond any run it is meant for.
constexpr double kFailureHorizon_s = 1e5;

// The scheduler has returned: no more failures, and a restarted node still waiting to rejoin
// (it came back as the job ended) is not left waiting for a scheduler that is gone.
void end_of_job(SimNodeStates& states) {
  states.job_over = true;
  for (std::size_t n = 1; n < states.actors.size(); ++n)
    if (states.failed_once[n] && states.running[n] && states.actors[n]) states.actors[n]->kill();
}

// Runs node `node`'s role (run_role) in its actor, recording whether it finished and why it
// failed. A server or worker into which a failure was injected may end in any way (killed, fenced
// by the scheduler, or failing on a cut link): that is the experiment, not a failure of the run.
// The scheduler's failure is always the run's.
void run_node(SimWorld& world, SimNodeStates& states, const JobSpec& spec, NodeId node,
              std::vector<bool>& finished, std::string& first_error, const std::string& device,
              bool rejoining) {
  SimEnv env(world, node);
  try {
    auto kernels = make_backend(device, nullptr);
    run_role(env, spec, node, *kernels, rejoining);
    finished[node] = true;
    if (node == JobLayout::scheduler()) end_of_job(states);
  } catch (const std::exception& e) {
    if (states.failed_once[node] && node != JobLayout::scheduler()) {
      world.metrics->event(sg4::Engine::get_clock(), "node_lost",
                           {{"node", host_name(world.layout, node)}, {"error", e.what()}});
    } else {
      if (first_error.empty()) {
        // Named once: the roles' own messages may start with their name already, as the role
        // writes it ("server 1") or as its host is named ("server-1").
        const std::string host = host_name(world.layout, node);
        std::string role = host;
        std::replace(role.begin(), role.end(), '-', ' ');
        const std::string what = e.what();
        const bool named = what.rfind(host + ": ", 0) == 0 || what.rfind(role + ": ", 0) == 0;
        first_error = named ? what : host + ": " + what;
      }
      // One failed role would leave the others waiting for their stall timeouts; end them all.
      sg4::Actor::kill_all();
    }
  }
  states.running[node] = false;
}


/// With the cluster's "cpu": a "node_cpu" event per node, as a launched job's nodes report theirs
/// (role_thread_s and process_s both the host work the node was charged, wall_s the run's
/// simulated length), so the two compare term by term (bench/node_cpu.py). Nothing without
/// "cpu", where host work is each node's own and no CPU is shared.
void record_host_work(const SimWorld& world, RunRecorder& recorder, double sim_time_s) {
  if (world.cpu_hosts.empty()) return;
  const JobLayout& layout = world.layout;
  for (NodeId n = 0; n < layout.nodes(); ++n) {
    nlohmann::json fields = cpu_use_json(CpuUse{world.host_work_s[n], world.host_work_s[n], sim_time_s});
    fields["node"] = n == JobLayout::scheduler() ? std::string("scheduler")
                     : layout.is_server(n)        ? "server:" + std::to_string(layout.server_index(n))
                                                  : "worker:" + std::to_string(layout.worker_index(n));
    recorder.event(sim_time_s, "node_cpu", std::move(fields));
  }
}

}  // namespace

nlohmann::json simulate_variant(const Scenario& scenario, const ConsistencyVariant& variant,
                                const PreparedTraining& prepared, const std::string& dir,
                                const ProgressFn& progress, const std::string& device) {
  const auto wall_start = std::chrono::steady_clock::now();
  const JobSpec spec = make_job_spec(scenario, variant, prepared);
  RunRecorder recorder(dir, scenario.training.target_metric, metric_goal(prepared));
  // The share of clocks the workers finished, as a stopped launch reports it (clocks_share), so
  // that a stopped variant's progress counts the clocks after its last evaluation too. Told at
  // each 0.1% step: the parent reads it through a pipe. Below 1 until the engine returns: 1
  // tells the parent that only outputs are left to write (VariantBody).
  double told = -1.0;
  if (progress)
    recorder.on_push = [&](std::uint64_t clocks_done, double time_s) {
      const double share = std::min(0.9999, clocks_share(clocks_done, spec.layout.workers, spec.iterations, 0));
      if (share - told < 0.001) return;
      told = share;
      progress(time_s, share);
    };

  // The scenario's SimGrid options, as --cfg= arguments (checked first: SimGridOptionError).
  SimGridArgs engine_args(scenario.simulation.cfg);
  sg4::Engine engine(engine_args.argc(), engine_args.argv());
  // SimGrid's own chatter (e.g. its deadlock report) is replaced by our checks below.
  xbt_log_control_set("root.thresh:critical");

  const JobLayout layout = spec.layout;
  SimWorld world;
  auto hosts = build_platform(scenario.cluster, layout, &world.cpu_hosts);
  StragglerModel stragglers(scenario.stragglers, layout.workers, scenario.seed);
  world.layout = layout;
  world.stragglers = &stragglers;
  world.metrics = &recorder;
  TraceRecorder trace(layout);
  recorder.set_trace(&trace);
  world.seed = scenario.seed;
  world.worker_compute_s.assign(layout.workers, 0.0);
  world.host_work_s.assign(layout.nodes(), 0.0);
  for (NodeId n = 0; n < layout.nodes(); ++n) {
    world.mailboxes.push_back(sg4::Mailbox::by_name(host_name(layout, n)));
    world.devices.push_back(node_device(scenario.cluster, layout, n));
    world.messaging.push_back(node_messaging(scenario.cluster, layout, n));
  }

  // NIC windows (opt-in): their daemon actors start before the roles, on the nodes' hosts.
  std::unique_ptr<NicSenders> nic_senders;
  if (scenario.simulation.sender_window() > 0) {
    // nic_send_window: receivers keep no window of their own (SimEnv posts no WindowedInbox).
    nic_senders = std::make_unique<NicSenders>(scenario.simulation.sender_window(), world.mailboxes, hosts,
                                               /*receivers_take_all=*/scenario.simulation.nic_window == 0,
                                               scenario.simulation.nic_send_part_bytes > 0
                                                   ? scenario.simulation.nic_send_part_bytes
                                                   : kNicPartBytes);
    world.nic_senders = nic_senders.get();
    world.nic_window = scenario.simulation.nic_window;
  }

  std::vector<bool> finished(layout.nodes(), false);
  std::string first_error;
  SimNodeStates states;
  states.incarnation.assign(layout.nodes(), 0);
  states.running.assign(layout.nodes(), true);
  states.failed_once.assign(layout.nodes(), false);
  states.actors.assign(layout.nodes(), nullptr);
  world.link_down.assign(layout.nodes(), false);
  if (spec.fault.checkpoint_every_clocks > 0 || spec.fault.checkpoint_every_s > 0)
    world.checkpoint_bandwidth_Bps = scenario.fault_tolerance.checkpoint_bandwidth_Bps;
  // Starts node n's role (again, when rejoining: a restarted process) and its heartbeats.
  auto start_node = [&](NodeId n, bool rejoining) {
    const std::string name = host_name(layout, n) +
                             (rejoining ? "#" + std::to_string(states.incarnation[n]) : std::string());
    states.running[n] = true;
    finished[n] = false;
    states.actors[n] = sg4::Actor::create(name, hosts[n], [&, n, rejoining] {
      run_node(world, states, spec, n, finished, first_error, device, rejoining);
    });
    if (spec.fault.enabled && n != JobLayout::scheduler())
      start_heartbeats(world, states, n, hosts[n], spec.fault.heartbeat_interval_s);
  };
  // The platform is built: every link is known. Not with a NIC window, meant for clusters so
  // large that reading every link at every event (links x events) would be most of the run.
  std::optional<LinkLoadMeter> link_load;
  if (!nic_senders) link_load.emplace();
  // A server that joins later starts then (the failure injector's kJoin); until it does it is
  // counted as a node with an injected event, which may end unfinished.
  std::vector<bool> joins_later(layout.nodes(), false);
  for (const FailureSpec& f : scenario.failures)
    if (f.kind == FailureSpec::Kind::kJoin) joins_later[layout.server(f.target.index)] = true;
  for (NodeId n = 0; n < layout.nodes(); ++n) {
    if (!joins_later[n]) {
      start_node(n, false);
      continue;
    }
    states.running[n] = false;
    states.failed_once[n] = true;
  }
  if (!scenario.failures.empty()) {
    InjectorHooks hooks;
    hooks.restart = [&](NodeId n) { start_node(n, true); };
    hooks.fail_job = [&](const std::string& why) {
      if (first_error.empty()) first_error = why;
      sg4::Actor::kill_all();
    };
    start_failure_injector(world, states, hosts, failure_schedule(scenario, kFailureHorizon_s),
                           hooks);
  }
  engine.run();

  const double sim_time = sg4::Engine::get_clock();
  // The run is over, whatever its outcome: only its outputs are left, which a stop must not cut
  // (simulate's parent lets a child that reported 1 finish, VariantBody).
  if (progress) progress(sim_time, 1.0);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  record_host_work(world, recorder, sim_time);
  recorder.flush();
  trace.write(dir + "/trace.json", "simulated");
  if (link_load) link_load->write_csv(dir + "/link_load.csv", sim_time);

  // A node whose failure was injected may end unfinished; that was the experiment.
  std::uint32_t unfinished = 0;
  for (NodeId n = 0; n < layout.nodes(); ++n)
    unfinished += finished[n] || (states.failed_once[n] && n != JobLayout::scheduler()) ? 0 : 1;
  RunFacts facts;
  facts.environment = "simulated";
  facts.iterations = spec.iterations;
  facts.time_s = sim_time;
  facts.wall_time_s = wall;
  facts.bytes_sent = world.bytes_sent;
  facts.messages_sent = world.messages_sent;
  facts.worker_compute_s = world.worker_compute_s;
  facts.roles_finished = unfinished == 0;
  facts.failure = first_error.empty()
                      ? count_text(unfinished, "role") + " did not finish (deadlock)"
                      : first_error;
  nlohmann::json summary = make_summary(scenario, variant, recorder, facts);
  if (link_load) summary["busiest_links"] = link_load->busiest(5, sim_time);
  write_summary(dir, summary);
  const bool completed = summary["completed"].get<bool>();
  if (!completed)
    throw std::runtime_error(summary["reason"].get<std::string>());
  return summary;
}

}  // namespace pstwin
