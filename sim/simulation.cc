#include "sim/simulation.h"

#include <chrono>
#include <cmath>
#include <fstream>
#include <memory>
#include <stdexcept>

#include <simgrid/s4u.hpp>
#include <xbt/log.h>

#include "kernels/select_backend.h"
#include "runtime/output/run_recorder.h"
#include "runtime/output/summary.h"
#include "runtime/roles/scheduler.h"
#include "runtime/roles/server.h"
#include "runtime/roles/worker.h"
#include "sim/platform.h"
#include "sim/sim_env.h"
#include "sim/stragglers.h"

namespace sg4 = simgrid::s4u;

namespace pstwin {

namespace {

// Runs one role in its actor, recording whether it finished and why it failed.
template <typename Role>
void run_role(SimWorld& world, const JobSpec& spec, NodeId node, std::vector<bool>& finished,
              std::string& first_error, std::uint32_t index, const std::string& device) {
  SimEnv env(world, node);
  try {
    auto kernels = make_backend(device, nullptr);
    if constexpr (std::is_same_v<Role, Scheduler>) {
      Scheduler role(env, spec, *kernels);
      (void)index;
      role.run();
    } else {
      Role role(env, spec, index, *kernels);
      role.run();
    }
    finished[node] = true;
  } catch (const std::exception& e) {
    if (first_error.empty()) first_error = e.what();
    // One failed role would leave the others waiting for their stall timeouts; end them all.
    sg4::Actor::kill_all();
  }
}

}  // namespace

nlohmann::json simulate_variant(const Scenario& scenario, const ConsistencyVariant& variant,
                                const PreparedTraining& prepared, const std::string& dir,
                                const ProgressFn& progress, const std::string& device) {
  const auto wall_start = std::chrono::steady_clock::now();
  const JobSpec spec = make_job_spec(scenario, variant, prepared);
  RunRecorder recorder(dir, scenario.training.target_metric, metric_goal(prepared));
  if (progress)
    recorder.on_eval = [&](const EvalRow& row) {
      progress(row.time_s, static_cast<double>(row.clock) / static_cast<double>(spec.iterations));
    };

  int argc = 1;
  char name[] = "pstwin";
  char* argv[] = {name, nullptr};
  sg4::Engine engine(&argc, argv);
  // SimGrid's own chatter (e.g. its deadlock report) is replaced by our checks below.
  xbt_log_control_set("root.thresh:critical");

  const JobLayout layout = spec.layout;
  auto hosts = build_star_platform(scenario.cluster, layout);
  StragglerModel stragglers(scenario.stragglers, layout.workers, scenario.seed);
  SimWorld world;
  world.layout = layout;
  world.stragglers = &stragglers;
  world.metrics = &recorder;
  world.seed = scenario.seed;
  for (NodeId n = 0; n < layout.nodes(); ++n) {
    world.mailboxes.push_back(sg4::Mailbox::by_name(host_name(layout, n)));
    world.devices.push_back(layout.is_worker(n) ? scenario.cluster.worker.device
                                                : scenario.cluster.server.device);
  }

  std::vector<bool> finished(layout.nodes(), false);
  std::string first_error;
  sg4::Actor::create("scheduler", hosts[0], [&] {
    run_role<Scheduler>(world, spec, JobLayout::scheduler(), finished, first_error, 0, device);
  });
  for (std::uint32_t s = 0; s < layout.servers; ++s)
    sg4::Actor::create(host_name(layout, layout.server(s)), hosts[layout.server(s)], [&, s] {
      run_role<Server>(world, spec, layout.server(s), finished, first_error, s, device);
    });
  for (std::uint32_t w = 0; w < layout.workers; ++w)
    sg4::Actor::create(host_name(layout, layout.worker(w)), hosts[layout.worker(w)], [&, w] {
      run_role<Worker>(world, spec, layout.worker(w), finished, first_error, w, device);
    });
  engine.run();

  const double sim_time = sg4::Engine::get_clock();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  recorder.flush();

  std::uint32_t unfinished = 0;
  for (bool f : finished) unfinished += f ? 0 : 1;
  RunFacts facts;
  facts.environment = "simulated";
  facts.time_s = sim_time;
  facts.wall_time_s = wall;
  facts.bytes_sent = world.bytes_sent;
  facts.messages_sent = world.messages_sent;
  facts.roles_finished = unfinished == 0;
  facts.failure = first_error.empty()
                      ? std::to_string(unfinished) + " roles did not finish (deadlock)"
                      : first_error;
  const nlohmann::json summary = make_summary(scenario, variant, recorder, facts);
  write_summary(dir, summary);
  const bool completed = summary["completed"].get<bool>();
  if (!completed)
    throw std::runtime_error(summary["reason"].get<std::string>());
  return summary;
}

}  // namespace pstwin
