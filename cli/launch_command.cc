// `pstwin launch`: run a scenario's roles for real, one variant after another.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <thread>

#include "cli/child_process.h"
#include "cli/commands.h"
#include "cli/comparison.h"
#include "cli/earlier_outputs.h"
#include "cli/device_option.h"
#include "cli/hostfile.h"
#include "cli/launch_failures.h"
#include "cli/launch_flags.h"
#include "cli/launch_job.h"
#include "cli/launch_summary.h"
#include "cli/memory_fit.h"
#include "cli/output_lock.h"
#include "cli/output_over_input.h"
#include "cli/run_checks.h"
#include "cli/scenario_options.h"
#include "cli/stop_signals.h"
#include "net/curve_keys.h"
#include "net/listen_check.h"
#include "net/metrics_address.h"
#include "net/real_job.h"
#include "net/tcp_address.h"
#include "net/transport_unavailable.h"
#include "runtime/errors.h"
#include "runtime/job_resume.h"
#include "runtime/count_text.h"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace pstwin::cli {

namespace {

constexpr const char* kUsage =
    "usage: pstwin launch SCENARIO.json [--transport zmq|ucx|inproc] [--out DIR] [--set /ptr=value ...]\n"
    "                     [--hostfile FILE [--ssh-command CMD] [--scheduler-host HOST] [--port P]]\n"
    "                     [--insecure | --key-file FILE] [--device auto|cpu|cuda] [--resume DIR]\n"
    "                     [--connect-timeout S] [--stall-timeout S] [--metrics-address HOST:PORT|none]\n"
    "                     [--quiet]\n"
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
      ("port", po::value<std::uint16_t>()->default_value(0), "scheduler port (0: any free port)")
      ("metrics-address", po::value<std::string>()->default_value(net::kDefaultMetricsAddress),
       "zmq: the scheduler serves live Prometheus metrics at HOST:PORT (port 0: any free one; none: off)")
      ("connect-timeout", po::value<double>()->default_value(30.0), "seconds the scheduler waits for the next node to register (nodes register as they start, before reading data)")
      ("stall-timeout", po::value<double>()->default_value(300.0), "seconds a role may wait for anything")
      ("resume", po::value<std::string>(), "continue from the newest complete checkpoint of an earlier run's output folder")
      ("quiet,q", "no progress lines (the line per variant started, the live metrics' address)");
  add_device_option(desc, "default: the scenario's training.device, else cpu");
  int code = 0;
  auto vm = parse_args(args, desc, pos, kUsage, code);
  if (!vm) return code;
  // How the flags combine, before the scenario is read or any name resolved.
  if (const std::string why = launch_flags_conflict(*vm); !why.empty()) {
    std::cerr << "pstwin launch: " << why << "\n";
    return 2;
  }
  auto scenario = load_scenario_from(*vm);
  if (!scenario) return 2;
  // Each variant runs the scenario it resolves to (its overrides applied): checks look at each.
  auto runs = resolve_variants_or_report(*vm, *scenario, /*load_data=*/false);
  if (!runs) return 2;
  const std::string transport = (*vm)["transport"].as<std::string>();
  // A signal stops the job through `stop` (see below). An in-process job's is taken before any
  // thread starts (a GPU's runtime starts some), so that none of them dies of the signal
  // instead; one that comes before the job starts stops it as it starts.
  net::StopRequest stop;
  std::optional<StopOnSignals> signals;
  if (transport == "inproc") signals.emplace(stop);
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
  s.quiet = vm->count("quiet") > 0;
  s.ucx = transport == "ucx";
  if (vm->count("key-file")) s.key_file = fs::absolute((*vm)["key-file"].as<std::string>()).string();
  const auto connect_timeout_s = seconds_flag(*vm, "connect-timeout", "launch");
  const auto stall_timeout_s = seconds_flag(*vm, "stall-timeout", "launch");
  if (!connect_timeout_s || !stall_timeout_s) return 2;
  s.connect_timeout_s = *connect_timeout_s;
  s.stall_timeout_s = *stall_timeout_s;
  s.ssh_command = (*vm)["ssh-command"].as<std::string>();
  s.port = (*vm)["port"].as<std::uint16_t>();
  s.metrics_address = (*vm)["metrics-address"].as<std::string>();
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
  if (s.ssh_command.find_first_not_of(" \t") == std::string::npos) {
    std::cerr << "pstwin launch: --ssh-command '" << s.ssh_command << "': empty: give the program that runs a "
              << "command on a host (ssh)\n";
    return 2;
  }
  if (vm->count("scheduler-host")) {
    // Other machines dial it: a host alone, one that names a machine ("*" names none) and that
    // resolves here (the nodes resolve it on their machines, but a name unknown here is most
    // likely a typo).
    s.scheduler_host = (*vm)["scheduler-host"].as<std::string>();
    if (const std::string why = net::dial_host_error(s.scheduler_host); !why.empty()) {
      std::cerr << "pstwin launch: --scheduler-host '" << s.scheduler_host << "': " << why << "\n";
      return 2;
    }
  }
  if (s.port != 0 && processes) {
    // The scheduler listens there (every interface with a hostfile): a port in use is said now,
    // naming the flag, rather than by the scheduler once the job starts.
    try {
      net::check_listen_here(net::tcp_endpoint(vm->count("hostfile") ? "*" : "127.0.0.1", std::to_string(s.port)));
    } catch (const std::invalid_argument& e) {
      std::cerr << "pstwin launch: --port " << s.port << ": " << e.what() << "\n";
      return 2;
    }
  }
  try {
    if (vm->count("hostfile")) {
      s.hosts = read_hostfile((*vm)["hostfile"].as<std::string>());
      std::size_t roles = 0;
      for (const Scenario& run : runs->scenarios)
        roles = std::max<std::size_t>(roles, run.cluster.servers + run.cluster.workers);
      if (total_slots(s.hosts) < roles) {
        std::cerr << "pstwin launch: the hostfile has " << count_text(total_slots(s.hosts), "slot") << " for "
                  << roles << " servers and workers; add hosts or slots\n";
        return 2;
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "pstwin launch: " << e.what() << "\n";
    return 2;
  }
  try {
    if (!s.key_file.empty()) net::read_key_file(s.key_file);
  } catch (const std::exception& e) {
    std::cerr << "pstwin launch: --key-file: " << e.what() << "\n";
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
  // Every run's data and model size, before any node starts: a node that found its model too
  // large for the wire (or its data bad) would fail only after the others started. Processes
  // read the data apart, so its size is read here from the data when the cheap look cannot
  // tell; a job in this process (or resumed) reads it whole just below anyway.
  const bool loads_data = transport == "inproc" || !s.resume.empty();
  const auto checked = check_runs_or_report(*vm, *scenario, /*read_whole=*/!loads_data);
  if (!checked) return 2;
  std::vector<RunMemory> memory = checked->memory;
  if (loads_data) {
    runs = resolve_variants_or_report(*vm, *scenario, /*load_data=*/true);
    if (!runs) return 2;
    memory = prepared_memory(*scenario, *runs);
  }
  // Every node on this machine (one process under inproc): a job larger than its memory is
  // refused now, as simulate refuses it, rather than left to fail an allocation mid-job (a trial's
  // inproc launch aborted so, with no summary). Variants run one after another: one at a time.
  if (s.hosts.empty())
    if (const std::string why = memory_refusal(memory, 1, machine_memory_bytes()); !why.empty()) {
      std::cerr << "pstwin launch: " << why << ", or spread the nodes over machines with --hostfile\n";
      return 2;
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
  std::vector<CommandInput> inputs = {{"the scenario", (*vm)["scenario"].as<std::string>()}};
  if (vm->count("hostfile")) inputs.push_back({"--hostfile", (*vm)["hostfile"].as<std::string>()});
  if (vm->count("key-file")) inputs.push_back({"--key-file", (*vm)["key-file"].as<std::string>(), true});
  if (const std::string why = out_overwrites_input(out, shown_out(vm->count("out") > 0, out), OutKind::kFolder, inputs);
      !why.empty()) {
    std::cerr << "pstwin launch: " << why << "\n";
    return 2;
  }
  std::string lock_error;
  const auto lock = OutputLock::take(out, "launch", lock_error);
  if (!lock) {
    std::cerr << "pstwin launch: " << lock_error << "\n";
    return 2;
  }
  for (const std::string& line : said_after_lock) std::cerr << line << "\n";
  // As simulate: no earlier run's files stand in for a variant stopped or not run this time.
  {
    std::vector<std::string> variants;
    for (const Scenario& run : runs->scenarios) variants.push_back(run.consistency.front().name);
    remove_earlier_outputs(out, variants);
  }
  // Stopped by a signal, a ZeroMQ job's launcher passes it on to its processes, whose scheduler
  // writes what it has, and waits for them; an in-process job's scheduler is a thread here, told
  // through `stop`. Either way launch then writes what simulate writes when stopped: a summary
  // for each variant not started, and the comparison of all.
  std::optional<StopOnSignalsInHandler> relayed;
  if (transport != "inproc") relayed.emplace(stop, signal_spawned_children);
  s.stop = &stop;
  const auto stop_signal = [&] { return signals ? signals->signal() : relayed->signal(); };
  std::vector<std::string> names;
  std::vector<int> exit_codes;
  std::size_t finished = 0;  // variants whose job ended by itself
  for (std::size_t i = 0; i < runs->scenarios.size(); ++i) {
    if (stop.reason()) break;  // it came between two variants
    const Scenario& run = runs->scenarios[i];
    const ConsistencyVariant& variant = run.consistency.front();
    const std::string dir = out + "/" + variant.name;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) {
      std::cerr << "pstwin launch: cannot create " << dir << ": " << ec.message() << "\n";
      return 2;
    }
    if (!s.quiet)
      std::cerr << "launch: " << variant.name << " (" << transport << ", " << count_text(run.cluster.servers, "server")
                << ", " << count_text(run.cluster.workers, "worker") << ")\n";
    int status = 0;
    try {
      if (transport == "inproc")
        net::run_inproc_job(run, variant, runs->prepared_for(i), dir, s.stall_timeout_s, s.device,
                            s.resume.empty() ? "" : checkpoint_dir_of(s.resume, variant.name), &stop);
      else
        status = launch_processes(run, variant, s, dir);
    } catch (const JobStopped& e) {
      std::cerr << "pstwin launch: " << variant.name << ": " << e.what() << "\n";
    } catch (const std::exception& e) {
      std::cerr << "pstwin launch: " << variant.name << ": " << e.what() << "\n";
      status = 1;
    }
    names.push_back(variant.name);
    exit_codes.push_back(status);
    if (const auto why = stop.reason()) {
      // The job was stopped, or it had completed when the signal came, and says so (the
      // scheduler's reason when the signal reached it, else the note added here: the scheduler
      // had written its summary and ended before the signal came).
      note_late_stop_in_folder(dir, *why);
      const nlohmann::json summary = summary_in(dir);
      const bool completed = summary.value("completed", false);
      exit_codes.back() = completed ? 0 : 128 + stop_signal();
      finished += completed ? 1 : 0;
      if (completed) std::cerr << "pstwin launch: " << variant.name << ": " << summary.value("reason", "") << "\n";
      break;
    }
    ++finished;
    if (status == net::kTransportUnavailableExit) {
      // The machine's fault, which every variant after this one would meet in turn.
      std::vector<std::string> not_run;
      try {
        not_run = mark_variants_not_run(runs->scenarios, i + 1, out,
                                        "not run: variant " + variant.name + "'s job found that --transport " +
                                            transport + " cannot work on this machine, so launch stopped there");
      } catch (const std::exception& e) {
        std::cerr << "pstwin launch: " << e.what() << "\n";
      }
      std::cerr << "pstwin launch: stopping: --transport " << transport << " cannot carry a job on this machine "
                << "(variant " << variant.name << "'s nodes said why above), and every variant would fail the "
                << "same way; not run:";
      for (const std::string& name : not_run) std::cerr << " " << name;
      std::cerr << (not_run.empty() ? " none (it was the last)\n" : "\n");
      names.insert(names.end(), not_run.begin(), not_run.end());
      exit_codes.resize(names.size(), status);
      break;
    }
  }
  const auto stopped = stop.reason();
  if (stopped) {
    // As simulate: every variant not started says why, and the comparison covers them all.
    try {
      const auto not_run = mark_variants_not_run(runs->scenarios, names.size(), out,
                                                 "the job was " + *stopped + " before it started",
                                                 stop.signal_name());
      names.insert(names.end(), not_run.begin(), not_run.end());
    } catch (const std::exception& e) {
      std::cerr << "pstwin launch: " << e.what() << "\n";
    }
    exit_codes.resize(names.size(), 128 + stop_signal());
  }
  const int status = report_comparison(*scenario, out, names, exit_codes);
  if (stopped) {
    std::cerr << "pstwin launch: " << *stopped << ": " << finished << " of "
              << count_text(runs->scenarios.size(), "variant") << " finished; their outputs and the others' "
              << "summaries are in " << out << "\n";
    return 128 + stop_signal();
  }
  // A node that found bad input (its data, say) ended its variant with status 2: so does launch;
  // and 3 when the transport could not work here at all.
  for (const int code : {2, net::kTransportUnavailableExit})
    if (std::find(exit_codes.begin(), exit_codes.end(), code) != exit_codes.end()) return code;
  return status;
}

}  // namespace pstwin::cli
