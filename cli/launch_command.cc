// `pstwin launch`: run a scenario's roles for real, one variant after another.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <cstdlib>
#include <thread>

#include "cli/child_process.h"
#include "cli/commands.h"
#include "cli/comparison.h"
#include "cli/output_lock.h"
#include "cli/device_option.h"
#include "cli/hostfile.h"
#include "cli/launch_failures.h"
#include "cli/job_supervisor.h"
#include "cli/scenario_options.h"
#include "net/curve_keys.h"
#include "net/live_metrics.h"
#include "net/metrics_address.h"
#include "net/real_job.h"
#include "net/tcp_address.h"
#include "runtime/job_resume.h"
#include "runtime/output/failure_accounting.h"
#include "runtime/output/summary.h"
#include "runtime/seconds_text.h"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace pstwin::cli {

namespace {

// Random failures (MTBF) are drawn up to this many seconds of wall time.
constexpr double kFailureHorizon_s = 1e6;

constexpr const char* kUsage =
    "usage: pstwin launch SCENARIO.json [--transport zmq|ucx|inproc] [--out DIR] [--set /ptr=value ...]\n"
    "                     [--hostfile FILE [--ssh-command CMD] [--scheduler-host HOST] [--port P]]\n"
    "                     [--insecure | --key-file FILE] [--device auto|cpu|cuda] [--resume DIR]\n"
    "                     [--connect-timeout S] [--stall-timeout S] [--metrics-address HOST:PORT|none]\n"
    "Runs every variant of the scenario for real, one after another: the scheduler,\n"
    "servers and workers as local processes talking ZeroMQ over TCP (default), as threads of this\n"
    "process (--transport inproc), or on the machines of a hostfile over ssh. --transport ucx\n"
    "sends servers' and workers' messages over UCX (shared memory, TCP, RDMA; needs --insecure:\n"
    "trusted networks only) and keeps ZeroMQ for the scheduler. Writes the same\n"
    "outputs as simulate, by default into runs/<name>-launch (simulate's: runs/<name>); one run\n"
    "at a time per output folder. time_s is wall-clock seconds. --resume DIR continues each variant from\n"
    "the newest complete checkpoint in DIR/<variant>/checkpoints (DIR: an earlier run's output).\n"
    "The scenario's failures are injected into the local processes (SIGKILL, then restart).\n"
    "A variant whose job cannot start still gets a summary.json (completed false, reason).";

/// Settings shared by the nodes of every variant.
struct LaunchSettings {
  std::string scenario_path;
  std::vector<std::string> sets;
  std::string key_file;  // empty: make one per variant (unless insecure)
  bool insecure = false;
  bool ucx = false;  // --transport ucx
  double connect_timeout_s = 30.0;
  double stall_timeout_s = 300.0;
  std::vector<HostSlots> hosts;  // empty: local processes
  std::string ssh_command = "ssh";
  std::string scheduler_host;
  unsigned port = 0;
  std::string device = "cpu";  // what every node computes with: resolved here unless remote
  std::string resume;          // an earlier run's output folder; empty: start afresh
  std::string metrics_address = net::kDefaultMetricsAddress;  // the schedulers'; "none": off
};

/// Where variant `variant`'s checkpoints are kept (or resumed from) under output folder `out`.
std::string checkpoint_dir_of(const std::string& out, const std::string& variant) {
  return fs::absolute(out + "/" + variant + "/checkpoints").string();
}

/// The launcher's failure events go after the scheduler's in the variant's events.jsonl, and the
/// summary's failure count and time lost are computed again with them.
void append_events(const std::string& dir, const std::vector<nlohmann::json>& events) {
  if (events.empty()) return;
  {
    std::ofstream out(dir + "/events.jsonl", std::ios::app);
    for (const auto& e : events) out << e.dump() << "\n";
  }
  const std::string path = dir + "/summary.json";
  if (!fs::exists(path)) return;  // the scheduler itself was killed
  try {
    auto summary = nlohmann::json::parse(std::ifstream(path));
    set_failure_fields(summary, read_events_jsonl(dir + "/events.jsonl"),
                       summary.value("sim_time_s", 0.0));
    write_summary(dir, summary);
  } catch (const std::exception& e) {
    std::cerr << "pstwin launch: cannot update " << path << ": " << e.what() << "\n";
  }
}

/// A summary for a variant whose scheduler ended without writing one (killed, or it could not
/// start): completed false and why, so that every variant folder says how it ended.
void write_missing_summary(const std::string& dir, const ConsistencyVariant& variant,
                           const std::string& reason) {
  write_summary(dir, unfinished_summary(variant, "zmq", reason));
}

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

/// Waits for the scheduler to publish its endpoint; empty when it exits or times out first.
std::string await_endpoint(const std::string& path, pid_t scheduler, double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<long>(timeout_s * 1000));
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream in(path);
    std::string endpoint;
    if (in >> endpoint && !endpoint.empty()) return endpoint;
    if (kill(scheduler, 0) != 0) return "";
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return "";
}

/// Runs one variant as separate processes; returns the scheduler's exit status (non-zero when
/// any role failed).
int launch_processes(const Scenario& scenario, const ConsistencyVariant& variant,
                     const LaunchSettings& s, const std::string& dir) {
  std::string key_file = s.key_file;
  if (!s.insecure && key_file.empty()) {
    key_file = fs::absolute(dir + "/job.key").string();
    net::write_key_file(key_file, net::make_job_keys());
  }
  const std::string endpoint_file = dir + "/scheduler.endpoint";
  fs::remove(endpoint_file);
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
  std::string endpoint = await_endpoint(endpoint_file, pids[0], s.connect_timeout_s);
  if (endpoint.empty()) {
    std::cerr << "pstwin launch: the scheduler did not start listening\n";
    const int status = wait_all(pids, 0.0)[0] ?: 1;
    if (!fs::exists(dir + "/summary.json"))
      write_missing_summary(dir, variant, "the scheduler did not start listening (exit status " +
                                              std::to_string(status) + ")");
    return status;
  }
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
      // ssh HOST 'cd CWD && exec pstwin node ...': the same paths must exist on every host.
      std::string command = "cd " + shell_quote(cwd) + " && exec";
      for (const auto& a : node) command.append(" ").append(shell_quote(a));
      node = split_words(s.ssh_command);
      node.push_back(placement[r]);
      node.push_back(command);
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
                                     dir + "/address_book.json", 2.0, events);
    append_events(dir, events);
    for (const auto& e : events)
      if (e["node"] == "scheduler" && !fs::exists(dir + "/summary.json")) {
        // The scheduler died before writing anything: say what happened in its place.
        write_missing_summary(dir, variant,
                              "the scheduler was killed at " + seconds_text(e["time_s"].get<double>()) +
                                  " s (failure injection); pstwin does not replicate the scheduler, "
                                  "so the job ended there");
        auto summary = nlohmann::json::parse(std::ifstream(dir + "/summary.json"));
        set_failure_fields(summary, read_events_jsonl(dir + "/events.jsonl"), e["time_s"].get<double>());
        write_summary(dir, summary);
      }
    return status;
  }
  // When a server or worker fails, the scheduler's own timeouts end the job and name what is
  // missing; its connect timeout counts from the latest registration, so it may fire a little
  // after the launcher saw the failure. The launcher stops it only well after that.
  const double grace_s = 1.5 * s.connect_timeout_s + 5.0;
  std::size_t first = pids.size();
  const auto status = wait_all(pids, grace_s, &first);
  if (!fs::exists(dir + "/summary.json")) {
    std::string reason = "the scheduler exited with status " + std::to_string(status[0]) +
                         " before writing a summary (see its messages above)";
    // The first node that ended by itself (not stopped by the launcher), a signal from elsewhere
    // (an OOM kill, a user's kill -9) included.
    if (first >= 1 && first < pids.size()) {
      const std::uint32_t r = static_cast<std::uint32_t>(first - 1);
      const bool server = r < scenario.cluster.servers;
      const int st = status[first];
      reason += "; first " + std::string(server ? "server:" : "worker:") +
                std::to_string(server ? r : r - scenario.cluster.servers) + " had exited with status " +
                std::to_string(st) + (st > 128 ? " (signal " + std::to_string(st - 128) + ")" : "") +
                (scenario.fault_tolerance.enabled ? "" : ", and the job has no fault tolerance to go on without it");
    } else if (first == 0) {
      reason += "; it was the first node to end";
    }
    write_missing_summary(dir, variant, reason);
  }
  for (std::size_t i = 0; i < status.size(); ++i)
    if (status[i] != 0) return status[i];
  return 0;
}

}  // namespace

int launch_command(const std::vector<std::string>& args) {
  po::options_description desc("launch options");
  po::positional_options_description pos;
  add_scenario_options(desc, pos);
  desc.add_options()
      ("transport", po::value<std::string>()->default_value("zmq"), "zmq, ucx (needs --insecure) or inproc")
      ("out,o", po::value<std::string>(), "output folder (default: the scenario's output.dir + \"-launch\", e.g. runs/<name>-launch)")
      ("insecure", "no authentication between nodes (trusted networks only)")
      ("key-file", po::value<std::string>(), "use this job key pair instead of making one")
      ("hostfile", po::value<std::string>(), "start the roles on these machines over ssh")
      ("ssh-command", po::value<std::string>()->default_value("ssh"), "program used as 'CMD HOST COMMAND'")
      ("scheduler-host", po::value<std::string>(), "with --hostfile: name the other machines reach this one by")
      ("port", po::value<unsigned>()->default_value(0), "scheduler port (0: any free port)")
      ("metrics-address", po::value<std::string>()->default_value(net::kDefaultMetricsAddress),
       "zmq: the scheduler serves live Prometheus metrics at HOST:PORT (port 0: any free one; none: off)")
      ("connect-timeout", po::value<double>()->default_value(30.0), "seconds the scheduler waits for the next node to register (nodes register as they start, before reading data)")
      ("stall-timeout", po::value<double>()->default_value(300.0), "seconds a role may wait for anything")
      ("resume", po::value<std::string>(), "continue from the newest complete checkpoint of an earlier run's output folder");
  add_device_option(desc, "default: the scenario's training.device, else cpu");
  int code = 0;
  auto vm = parse_args(args, desc, pos, kUsage, code);
  if (!vm) return code;
  auto scenario = load_scenario_from(*vm);
  if (!scenario) return 2;
  // Each variant runs the scenario it resolves to (its overrides applied): checks look at each.
  auto runs = resolve_variants_or_report(*scenario, /*load_data=*/false);
  if (!runs) return 2;
  const std::string transport = (*vm)["transport"].as<std::string>();
  if (transport != "zmq" && transport != "ucx" && transport != "inproc") {
    std::cerr << "pstwin launch: --transport must be zmq, ucx or inproc, not '" << transport << "'\n";
    return 2;
  }
  if (transport == "ucx" && !vm->count("insecure")) {
    std::cerr << "pstwin launch: --transport ucx needs --insecure: UCX has no authentication, so it is "
                 "for trusted networks only\n";
    return 2;
  }
  // Processes of their own, as over ZeroMQ: UCX carries only their data plane.
  const bool processes = transport == "zmq" || transport == "ucx";
  for (std::size_t i = 0; i < runs->scenarios.size(); ++i) {
    // Failures are injected by killing and restarting local processes.
    const std::string why = launch_cannot_inject(runs->scenarios[i], transport, vm->count("hostfile") > 0);
    if (!why.empty()) {
      std::cerr << "pstwin launch: variant " << scenario->consistency[i].name << "'s failures ("
                << failures_pointer(*scenario, i) << "): injection " << why << "\n";
      return 2;
    }
  }
  if (double load = 0; ::getloadavg(&load, 1) == 1)
    for (std::size_t i = 0; i < runs->scenarios.size(); ++i)
      std::cerr << loaded_machine_warning(runs->scenarios[i], scenario->consistency[i].name, load,
                                          std::thread::hardware_concurrency());
  LaunchSettings s;
  s.scenario_path = fs::absolute((*vm)["scenario"].as<std::string>()).string();
  if (vm->count("resume")) {
    s.resume = fs::absolute((*vm)["resume"].as<std::string>()).string();
    for (const auto& v : scenario->consistency)
      if (!fs::is_directory(checkpoint_dir_of(s.resume, v.name))) {
        std::cerr << "pstwin launch: --resume " << s.resume << ": no checkpoint folder "
                  << checkpoint_dir_of(s.resume, v.name) << " for variant " << v.name << "\n";
        return 2;
      }
  }
  if (vm->count("set")) s.sets = (*vm)["set"].as<std::vector<std::string>>();
  s.insecure = vm->count("insecure") > 0;
  s.ucx = transport == "ucx";
  if (s.insecure && vm->count("key-file")) {
    std::cerr << "pstwin launch: --insecure and --key-file contradict each other; choose one\n";
    return 2;
  }
  if (vm->count("key-file")) s.key_file = fs::absolute((*vm)["key-file"].as<std::string>()).string();
  const auto connect_timeout_s = seconds_flag(*vm, "connect-timeout", "launch");
  const auto stall_timeout_s = seconds_flag(*vm, "stall-timeout", "launch");
  if (!connect_timeout_s || !stall_timeout_s) return 2;
  s.connect_timeout_s = *connect_timeout_s;
  s.stall_timeout_s = *stall_timeout_s;
  s.ssh_command = (*vm)["ssh-command"].as<std::string>();
  s.port = (*vm)["port"].as<unsigned>();
  s.metrics_address = (*vm)["metrics-address"].as<std::string>();
  if (transport == "inproc" && !(*vm)["metrics-address"].defaulted()) {
    std::cerr << "pstwin launch: --metrics-address needs --transport zmq or ucx: a job in process serves no "
                 "live metrics\n";
    return 2;
  }
  if (s.metrics_address != "none" && processes) {
    // The scheduler runs here (with a hostfile too): it must be able to serve there, said now
    // rather than after the nodes started.
    try {
      net::check_metrics_address_here(s.metrics_address);
    } catch (const std::invalid_argument& e) {
      std::cerr << "pstwin launch: --metrics-address: " << e.what() << "\n";
      return 2;
    }
  }
  if (vm->count("scheduler-host")) s.scheduler_host = (*vm)["scheduler-host"].as<std::string>();
  if (s.port > 65535) {
    std::cerr << "pstwin launch: --port must be a TCP port, 1 to 65535 (without it: any free port), got "
              << (*vm)["port"].as<unsigned>() << "\n";
    return 2;
  }
  try {
    if (vm->count("hostfile")) {
      if (!processes) {
        std::cerr << "pstwin launch: --hostfile needs --transport zmq or ucx\n";
        return 2;
      }
      s.hosts = read_hostfile((*vm)["hostfile"].as<std::string>());
      std::size_t roles = 0;
      for (const Scenario& run : runs->scenarios)
        roles = std::max<std::size_t>(roles, run.cluster.servers + run.cluster.workers);
      if (total_slots(s.hosts) < roles) {
        std::cerr << "pstwin launch: the hostfile has " << total_slots(s.hosts) << " slots for "
                  << roles << " servers and workers; add hosts or slots\n";
        return 2;
      }
    }
    if (!s.key_file.empty()) net::read_key_file(s.key_file);
  } catch (const std::exception& e) {
    std::cerr << "pstwin launch: " << e.what() << "\n";
    return 2;
  }
  // Its own default, apart from simulate's: the two never mix their files by default.
  const std::string out = vm->count("out") ? (*vm)["out"].as<std::string>() : scenario->output.dir + "-launch";
  // Local roles all compute on what this machine offers, decided once here (auto included);
  // remote nodes each decide for themselves, on their own hardware.
  // What this run will do is said once it holds its folder, not before a refusal.
  std::vector<std::string> said_after_lock;
  const auto device = requested_device(*vm, scenario->training.device, "launch");
  if (!device) return 2;
  s.device = *device;
  if (s.hosts.empty()) {
    std::string chosen;
    const auto resolved = resolve_device(*device, "launch", &chosen);
    if (!resolved) return 2;
    s.device = *resolved;
    said_after_lock.push_back("launch: kernels on " + chosen);
  }
  if (transport == "inproc" || !s.resume.empty()) {
    runs = resolve_variants_or_report(*scenario, /*load_data=*/true);
    if (!runs) return 2;
  }
  // A checkpoint that does not fit the job is bad input: said here, before any node starts.
  for (std::size_t i = 0; i < runs->scenarios.size(); ++i) {
    if (s.resume.empty()) break;
    const ConsistencyVariant& variant = runs->scenarios[i].consistency.front();
    std::vector<std::string> skipped;
    try {
      const auto point = load_resume_point(checkpoint_dir_of(s.resume, variant.name),
                                           make_job_spec(runs->scenarios[i], variant, runs->prepared_for(i)), &skipped);
      for (const auto& why : skipped) said_after_lock.push_back("launch: " + why);
      said_after_lock.push_back("launch: " + variant.name + " resumes from clock " + std::to_string(point.clock) +
                                " of " + checkpoint_dir_of(s.resume, variant.name));
    } catch (const std::exception& e) {
      for (const auto& why : skipped) std::cerr << "launch: " << why << "\n";
      std::cerr << "pstwin launch: --resume: " << e.what() << "\n";
      return 2;
    }
  }
  std::string lock_error;
  const auto lock = OutputLock::take(out, "launch", lock_error);
  if (!lock) {
    std::cerr << "pstwin launch: " << lock_error << "\n";
    return 2;
  }
  for (const std::string& line : said_after_lock) std::cerr << line << "\n";
  forward_termination_to_children();
  std::vector<std::string> names;
  std::vector<int> exit_codes;
  for (std::size_t i = 0; i < runs->scenarios.size(); ++i) {
    const Scenario& run = runs->scenarios[i];
    const ConsistencyVariant& variant = run.consistency.front();
    const std::string dir = out + "/" + variant.name;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) {
      std::cerr << "pstwin launch: cannot create " << dir << ": " << ec.message() << "\n";
      return 2;
    }
    std::cerr << "launch: " << variant.name << " (" << transport << ", "
              << run.cluster.servers << " servers, " << run.cluster.workers
              << " workers)\n";
    int status = 0;
    try {
      if (transport == "inproc")
        net::run_inproc_job(run, variant, runs->prepared_for(i), dir, s.stall_timeout_s, s.device,
                            s.resume.empty() ? "" : checkpoint_dir_of(s.resume, variant.name));
      else
        status = launch_processes(run, variant, s, dir);
    } catch (const std::exception& e) {
      std::cerr << "pstwin launch: " << variant.name << ": " << e.what() << "\n";
      status = 1;
    }
    names.push_back(variant.name);
    exit_codes.push_back(status);
  }
  const int status = report_comparison(*scenario, out, names, exit_codes);
  // A node that found bad input (its data, say) ended its variant with status 2: so does launch.
  return std::find(exit_codes.begin(), exit_codes.end(), 2) != exit_codes.end() ? 2 : status;
}

}  // namespace pstwin::cli
