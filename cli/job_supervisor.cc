#include "cli/job_supervisor.h"

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>
#include <thread>

#include "cli/child_process.h"
#include "net/transport_unavailable.h"

namespace pstwin::cli {

namespace {

using Clock = std::chrono::steady_clock;

struct Action {
  double at_s;
  enum class What { kFail, kRestart, kJoin } what;
  NodeRef node;
};

pid_t& pid_of(JobProcesses& job, const NodeRef& ref) {
  switch (ref.role) {
    case NodeRef::Role::kServer: return job.servers.at(ref.index);
    case NodeRef::Role::kWorker: return job.workers.at(ref.index);
    case NodeRef::Role::kScheduler: break;
  }
  return job.scheduler;
}

}  // namespace

int supervise_job(JobProcesses& job, const std::vector<FailureEvent>& schedule,
                  const std::string& time0_file, double grace_s, std::vector<nlohmann::json>& events,
                  const net::StopRequest* stop) {
  std::vector<Action> actions;
  for (const auto& e : schedule) {
    if (e.kind == FailureSpec::Kind::kJoin) {  // a joining server's first process starts then
      actions.push_back({e.at_s, Action::What::kJoin, e.target});
      continue;
    }
    actions.push_back({e.at_s, Action::What::kFail, e.target});
    if (e.recover_at_s) actions.push_back({*e.recover_at_s, Action::What::kRestart, e.target});
  }
  std::stable_sort(actions.begin(), actions.end(),
                   [](const Action& a, const Action& b) { return a.at_s < b.at_s; });
  std::vector<pid_t> killed;  // on purpose: their exit status says nothing about the job
  std::vector<pid_t> others;  // every server and worker process started, current or former
  // Not the -1 of a server yet to join: kill(-1, ...) would signal every process of the user.
  for (pid_t p : job.servers)
    if (p > 0) others.push_back(p);
  for (pid_t p : job.workers)
    if (p > 0) others.push_back(p);
  const pid_t scheduler = job.scheduler;  // job.scheduler becomes -1 if it is killed
  const std::string summary = std::filesystem::path(time0_file).parent_path().string() + "/summary.json";
  std::optional<Clock::time_point> time0;
  std::size_t next = 0;
  std::optional<int> scheduler_status;
  bool scheduler_killed = false;
  std::optional<Clock::time_point> wind_down;
  bool terminated = false;
  bool transport_failed = false;
  std::optional<Clock::time_point> stopped_until;  // when a stopped job's last processes are killed
  for (;;) {
    if (stop && !stopped_until && stop->reason())
      stopped_until = Clock::now() + std::chrono::milliseconds(static_cast<long>(kStoppedChildrenGrace_s * 1000));
    // Reap whatever ended.
    int ws = 0;
    pid_t pid;
    while ((pid = waitpid(-1, &ws, WNOHANG)) > 0) {
      forget_spawned(pid);
      const ChildExit end = ChildExit::of(ws);
      if (pid == scheduler) scheduler_status = end.shell_status();
      else if (end.signal == 0 && end.code == net::kTransportUnavailableExit && !transport_failed &&
               std::find(killed.begin(), killed.end(), pid) == killed.end()) {
        // Every node would meet the same (the machine's transport), so no failover helps: the
        // job ends now, the scheduler writing what it has, as after a signal.
        transport_failed = true;
        std::cerr << "pstwin launch: a node's transport cannot work on this machine (see its messages above); "
                     "stopping the job\n";
        if (job.scheduler > 0) kill(job.scheduler, SIGTERM);
      }
      std::erase(others, pid);
    }
    if (scheduler_status && !wind_down) wind_down = Clock::now() + std::chrono::milliseconds(static_cast<long>(grace_s * 1000));
    if (scheduler_status && others.empty()) break;
    if (stopped_until && Clock::now() > *stopped_until) {
      for (pid_t p : others) kill(p, SIGKILL);
      if (!scheduler_status) kill(scheduler, SIGKILL);
      stopped_until = Clock::time_point::max();  // once
    }
    if (wind_down && Clock::now() > *wind_down) {
      for (pid_t p : others) kill(p, terminated ? SIGKILL : SIGTERM);
      terminated = true;
      wind_down = Clock::now() + std::chrono::seconds(5);
    }
    if (!time0 && std::filesystem::exists(time0_file)) time0 = Clock::now();
    // The job is over once the scheduler wrote its summary: nothing more to inject.
    // So is a stopped one: nothing restarts what the signal ended.
    const bool over = scheduler_status || stopped_until || std::filesystem::exists(summary);
    while (time0 && !over && next < actions.size() &&
           std::chrono::duration<double>(Clock::now() - *time0).count() >= actions[next].at_s) {
      const Action& a = actions[next++];
      const double t = std::chrono::duration<double>(Clock::now() - *time0).count();
      pid_t& target = pid_of(job, a.node);
      if (a.what == Action::What::kFail) {
        if (target <= 0) continue;  // already down
        kill(target, SIGKILL);
        killed.push_back(target);
        if (a.node.role == NodeRef::Role::kScheduler) scheduler_killed = true;
        target = -1;
        events.push_back({{"time_s", t}, {"type", "node_failed"}, {"node", a.node.text()}});
        std::cerr << "launch: killed " << a.node.text() << " at " << t << " s\n";
      } else {
        if (target > 0) continue;  // never went down
        const bool join = a.what == Action::What::kJoin;
        target = job.restart(a.node);
        others.push_back(target);
        events.push_back({{"time_s", t}, {"type", join ? "node_started" : "node_restarted"}, {"node", a.node.text()}});
        std::cerr << "launch: " << (join ? "started joining " : "restarted ") << a.node.text() << " at " << t << " s\n";
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (transport_failed) return net::kTransportUnavailableExit;
  if (scheduler_killed) return 1;
  return *scheduler_status;
}

}  // namespace pstwin::cli
