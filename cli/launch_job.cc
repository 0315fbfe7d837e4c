#include "cli/launch_job.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <thread>

#include "cli/child_process.h"
#include "cli/hostfile.h"
#include "cli/job_supervisor.h"
#include "cli/launch_summary.h"
#include "net/curve_keys.h"
#include "net/tcp_address.h"
#include "net/transport_unavailable.h"
#include "runtime/output/failure_accounting.h"
#include "runtime/output/summary.h"
#include "runtime/seconds_text.h"

namespace fs = std::filesystem;

namespace pstwin::cli {

namespace {

// Random failures (MTBF) are drawn up to this many seconds of wall time.
constexpr double kFailureHorizon_s = 1e6;

/// Arguments of `pstwin node` common to every role of a variant.
std::vector<std::string> node_args(const LaunchSettings& s, const std::string& variant,
                                   const std::string& key_file) {
  std::vector<std::string> a = {self_executable(), "node", "--variant", variant,
                                "--connect-timeout", std::to_string(s.connect_timeout_s),
                                "--stall-timeout", std::to_string(s.stall_timeout_s),
                                "--device", s.device, "--quiet"};
  if (s.ucx) a.insert(a.end(), {"--transport", "ucx"});
  if (s.insecure) a.push_back("--insecure");
  else a.insert(a.end(), {"--key-file", key_file});
  for (const auto& set : s.sets) a.insert(a.end(), {"--set", set});
  a.push_back(s.scenario_path);
  return a;
}

/// Waits for the scheduler to publish its endpoint; empty when it exits, times out or is stopped
/// (`stop`, may be null) first.
std::string await_endpoint(const std::string& path, pid_t scheduler, double timeout_s,
                           const net::StopRequest* stop) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<long>(timeout_s * 1000));
  while (std::chrono::steady_clock::now() < deadline && !(stop && stop->reason())) {
    std::ifstream in(path);
    std::string endpoint;
    if (in >> endpoint && !endpoint.empty()) return endpoint;
    // Ended, without reaping it (wait_all does): kill(pid, 0) succeeds on a zombie.
    siginfo_t info{};
    if (waitid(P_PID, static_cast<id_t>(scheduler), &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid != 0)
      return "";
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return "";
}

}  // namespace

int launch_processes(const Scenario& scenario, const ConsistencyVariant& variant,
                     const LaunchSettings& s, const std::string& dir) {
  std::string key_file = s.key_file;
  if (!s.insecure && key_file.empty()) {
    key_file = fs::absolute(dir + "/job.key").string();
    net::write_key_file(key_file, net::make_job_keys());
  }
  const std::string endpoint_file = dir + "/scheduler.endpoint";
  fs::remove(endpoint_file);
  fs::remove(dir + "/metrics.url");  // an earlier run's, which this one (metrics off) may not replace
  const bool remote = !s.hosts.empty();
  // Remote nodes may reach this machine over IPv4 or IPv6: "*" listens on both.
  const std::string bind = net::tcp_endpoint(remote ? "*" : "127.0.0.1",
                                             s.port ? std::to_string(s.port) : std::string("*"));
  auto args = node_args(s, variant.name, key_file);
  if (!s.resume.empty()) args.insert(args.begin() + 2, {"--resume", checkpoint_dir_of(s.resume, variant.name)});
  const std::string checkpoints = fs::absolute(dir + "/checkpoints").string();
  auto sched = args;
  sched.insert(sched.begin() + 2, {"--role", "scheduler", "--scheduler", bind, "--out", dir,
                                   "--endpoint-file", endpoint_file, "--checkpoint-dir", checkpoints,
                                   "--metrics-address", s.metrics_address});
  std::vector<pid_t> pids = {spawn(sched)};
  std::string endpoint = await_endpoint(endpoint_file, pids[0], s.connect_timeout_s, s.stop);
  if (endpoint.empty()) {
    const auto stopped = s.stop ? s.stop->reason() : std::nullopt;
    if (!stopped) std::cerr << "pstwin launch: the scheduler did not start listening\n";
    const ChildExit end = wait_all(pids, 0.0, nullptr, {}, s.stop)[0];
    if (!fs::exists(dir + "/summary.json"))
      write_missing_summary(dir, scenario,
                            (stopped ? "the job was " + *stopped + " before the scheduler started listening"
                                     : std::string("the scheduler did not start listening")) +
                                " (it " + end.text() + ")",
                            stopped ? s.stop->signal_name() : "");
    return end.ok() ? 1 : end.shell_status();
  }
  // Its scheduler runs --quiet: the live metrics' URL (written before the endpoint) is said here.
  if (std::ifstream url_file(dir + "/metrics.url"); url_file)
    if (std::string url; !s.quiet && std::getline(url_file, url) && !url.empty())
      std::cerr << "launch: live metrics at " << url << "\n";
  if (remote) {
    const std::string host = s.scheduler_host.empty() ? [] {
      char buf[256] = {};
      gethostname(buf, sizeof buf - 1);
      return std::string(buf);
    }() : s.scheduler_host;
    endpoint = net::tcp_endpoint(host, net::parse_tcp_endpoint(endpoint).port);
  }
  const std::uint32_t roles = scenario.cluster.servers + scenario.cluster.workers;
  std::vector<std::string> placement(roles);
  if (remote) placement = assign_hosts(s.hosts, roles);
  const std::string cwd = fs::current_path().string();
  // Role r's command line: a server or worker with its index (so that failures hit the node the
  // scenario names), and for a restarted process, --rejoin.
  auto node_command = [&](std::uint32_t r, bool rejoin) {
    const bool server = r < scenario.cluster.servers;
    const std::uint32_t index = server ? r : r - scenario.cluster.servers;
    auto node = args;
    node.insert(node.begin() + 2, {"--role", server ? "server" : "worker", "--scheduler", endpoint,
                                   "--index", std::to_string(index)});
    if (server) node.insert(node.begin() + 2, {"--checkpoint-dir", checkpoints});
    if (rejoin) node.insert(node.begin() + 2, "--rejoin");
    return node;
  };
  // The last servers of a scenario with joins start later, at their "at" (supervise_job).
  const std::uint32_t first_joiner = scenario.cluster.servers - static_cast<std::uint32_t>(std::count_if(
      scenario.failures.begin(), scenario.failures.end(),
      [](const FailureSpec& f) { return f.kind == FailureSpec::Kind::kJoin; }));
  for (std::uint32_t r = 0; r < roles; ++r) {
    if (r >= first_joiner && r < scenario.cluster.servers) {
      pids.push_back(-1);
      continue;
    }
    auto node = node_command(r, false);
    if (remote) {
      node = over_ssh(s.ssh_command, placement[r], cwd, node);
    }
    pids.push_back(spawn(node));
  }
  if (!scenario.failures.empty()) {
    JobProcesses job;
    job.scheduler = pids[0];
    job.servers.assign(pids.begin() + 1, pids.begin() + 1 + scenario.cluster.servers);
    job.workers.assign(pids.begin() + 1 + scenario.cluster.servers, pids.end());
    job.restart = [&](const NodeRef& ref) {
      const std::uint32_t r = ref.role == NodeRef::Role::kServer ? ref.index
                                                                 : scenario.cluster.servers + ref.index;
      // A joining server's first process is no restart: its index alone makes it join.
      return spawn(node_command(r, r < first_joiner || r >= scenario.cluster.servers));
    };
    std::vector<nlohmann::json> events;
    // Once the scheduler is gone the others have nothing left to do but report, or wait in vain
    // to rejoin: a short grace.
    const int status = supervise_job(job, failure_schedule(scenario, kFailureHorizon_s),
                                     dir + "/address_book.json", 2.0, events, s.stop);
    append_events(dir, events);
    for (const auto& e : events)
      if (e["node"] == "scheduler" && !fs::exists(dir + "/summary.json")) {
        // The scheduler died before writing anything: say what happened in its place.
        write_missing_summary(dir, scenario,
                              "the scheduler was killed at " + seconds_text(e["time_s"].get<double>()) +
                                  " s (failure injection); pstwin does not replicate the scheduler, "
                                  "so the job ended there");
        auto summary = nlohmann::json::parse(std::ifstream(dir + "/summary.json"));
        set_failure_fields(summary, read_events_jsonl(dir + "/events.jsonl"), e["time_s"].get<double>());
        write_summary(dir, summary);
      }
    return status;
  }
  // A node the job cannot go on without ends it at once: without fault tolerance any server or
  // worker, and before the job started (no address book yet) any at all, since the rendezvous
  // waits for everyone (a UCX that cannot start fails every node at once). The launcher then
  // stops the scheduler, which writes what it has. A node that exits with status 2 is the
  // exception: it found bad input and told the scheduler, which ends the job by itself, saying
  // so better than the launcher could.
  const bool tolerant = scenario.fault_tolerance.enabled;
  const std::string address_book = dir + "/address_book.json";
  struct Lost {
    std::size_t node;  // index in pids
    ChildExit end;
    std::string why;
  };
  // ssh ends with 255 when it fails itself (the host cannot be reached, the login is refused):
  // said, since the node's own command never ran then.
  const auto exit_text = [&](std::size_t i, const ChildExit& end) {
    const bool ssh_failed = remote && end.signal == 0 && end.code == 255;
    return node_exit_text(scenario, i, end) +
           (ssh_failed ? " (" + s.ssh_command + "'s status for a failure of its own, e.g. it could not reach " +
                             placement[i - 1] + ")"
                       : "");
  };
  std::optional<Lost> lost;  // the node that ended the job
  auto stop_at_once = [&](std::size_t i, const ChildExit& st) {
    // A node ended by the signal that stopped the launcher is not lost (wait_all may see it end
    // just before it sees the stop).
    if (s.stop && s.stop->reason()) return false;
    // A scheduler that failed leaves nothing to go on: its servers and workers stop now rather
    // than after their timeouts (it names the reason itself, or the summary repair below does).
    // Killed outright: they write nothing, and a stop signal would have them wait out their
    // grace (cli/node_stop_grace.h) for a stop from the scheduler that can no longer come.
    // (signal_spawned_children reaches only children not yet reaped: never a reused pid.)
    if (i == 0 && !st.ok()) signal_spawned_children(SIGKILL);
    if (i == 0) return !st.ok();
    const bool started = fs::exists(address_book);
    // A transport that cannot work here fails every node alike: no failover helps.
    const bool transport = st.signal == 0 && st.code == net::kTransportUnavailableExit;
    if ((st.signal == 0 && st.code == 2) || (tolerant && started && !transport)) return false;
    lost = Lost{i, st, transport ? ": its transport cannot work on this machine"
                       : started ? ", and the job has no fault tolerance to go on without it"
                                 : " before the job started (every node must register)"};
    std::cerr << "pstwin launch: " << exit_text(i, st) << lost->why
              << " (see its messages above); stopping the job\n";
    return true;
  };
  // Otherwise, when a server or worker fails, the scheduler's own timeouts end the job and name
  // what is missing; its connect timeout counts from the latest registration, so it may fire a
  // little after the launcher saw the failure. The launcher stops it only well after that.
  const double grace_s = 1.5 * s.connect_timeout_s + 5.0;
  std::size_t first = pids.size();
  const auto status = wait_all(pids, grace_s, &first, stop_at_once, s.stop);
  if (!fs::exists(dir + "/summary.json")) {
    const auto stopped = s.stop ? s.stop->reason() : std::nullopt;
    std::string reason = (stopped ? "the job was " + *stopped + "; " : std::string()) + "the scheduler " +
                         status[0].text() + " before writing a summary (see its messages above)";
    // The first node that ended by itself (not stopped by the launcher), a signal from elsewhere
    // (an OOM kill, a user's kill -9) included.
    if (first >= 1 && first < pids.size()) {
      reason += "; first " + exit_text(first, status[first]) +
                (tolerant ? "" : ", and the job has no fault tolerance to go on without it");
    } else if (first == 0) {
      reason += "; it was the first node to end";
    }
    write_missing_summary(dir, scenario, reason, stopped ? s.stop->signal_name() : "");
  } else if (lost) {
    record_job_lost(dir, scenario, lost->node, lost->end, lost->why);
  }
  // The node that ended the job says how it failed, not the scheduler stopped because of it.
  // Its exit code, unless that would read as a signal to a shell (above 128): then 1.
  if (lost) return lost->end.signal != 0 || lost->end.code > 128 ? 1 : lost->end.code;
  if (status[0].ok() && tolerant && summary_in(dir).value("completed", false)) {
    // Fault tolerance did its work: nodes that died (a user's kill -9, an OOM kill) were failed
    // over and the job completed. They are named, but the job did not fail.
    for (std::size_t i = 1; i < status.size(); ++i)
      if (!status[i].ok())
        std::cerr << "pstwin launch: " << exit_text(i, status[i])
                  << "; the job went on without it (fault tolerance) and completed\n";
    return 0;
  }
  for (std::size_t i = 0; i < status.size(); ++i)
    if (!status[i].ok()) return status[i].shell_status();
  return 0;
}


std::string checkpoint_dir_of(const std::string& out, const std::string& variant) {
  return fs::absolute(out + "/" + variant + "/checkpoints").string();
}

}  // namespace pstwin::cli
