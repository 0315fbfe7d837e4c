// `pstwin node`: one role of a real job, in this process, over ZeroMQ (and UCX for the data plane
// with --transport ucx).
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>

#include "cli/commands.h"
#include "cli/comparison.h"
#include "cli/device_option.h"
#include "cli/flag_source.h"
#include "cli/flag_values.h"
#include "cli/output_lock.h"
#include "cli/output_over_input.h"
#include "cli/output_probe.h"
#include "cli/override_note.h"
#include "cli/scenario_options.h"
#include "cli/node_stop_grace.h"
#include "cli/stop_signals.h"
#include "net/curve_keys.h"
#include "net/listen_check.h"
#include "net/live_metrics.h"
#include "net/metrics_address.h"
#include "net/real_job.h"
#include "net/tcp_address.h"
#include "net/transport_unavailable.h"
#include "net/zmq_env.h"
#include "runtime/checkpoint/checkpoint_dir.h"
#include "runtime/errors.h"
#include "runtime/output/atomic_file.h"

namespace po = boost::program_options;

namespace pstwin::cli {

namespace {
constexpr const char* kUsage =
    "usage: pstwin node --role scheduler|server|worker --scheduler tcp://HOST:PORT\n"
    "                   (--key-file FILE | --insecure) [options] SCENARIO.json\n"
    "Runs one node of a job over ZeroMQ. Every option can also come from the environment as\n"
    "PSTWIN_<OPTION> (PSTWIN_ROLE, PSTWIN_SCHEDULER, PSTWIN_KEY_FILE, PSTWIN_INSECURE=1, ...),\n"
    "so srun, mpirun-style launchers or Kubernetes can start nodes. The scheduler listens at\n"
    "--scheduler (a port of * picks a free one; see --endpoint-file) and writes the outputs.\n"
    "A node registers as it starts, then reads its data (servers: none). Each prints a line\n"
    "about its data and a progress line every 5 s on stderr; the scheduler ends with the\n"
    "comparison table (--quiet: none of these). A node whose scenario, variant or data files\n"
    "differ from the scheduler's is turned away (exit status 2) saying where; one whose transport\n"
    "cannot work here (UCX cannot start, or reaches no other node) exits with status 3.";

/// The scheduler's last word, as simulate and launch end: the comparison table of its one variant
/// (from the summary it wrote, completed or not).
void print_final_table(const net::NodeOptions& options, const ConsistencyVariant& variant) {
  const std::string path = options.out_dir + "/summary.json";
  if (options.role != "scheduler" || options.quiet || !std::filesystem::exists(path)) return;
  try {
    print_comparison_table(std::cout, {nlohmann::json::parse(std::ifstream(path))});
    std::cout << "outputs: " << options.out_dir << " (variant " << variant.name << ")\n";
  } catch (const std::exception& e) {
    std::cerr << "pstwin node: cannot read " << path << ": " << e.what() << "\n";
  }
}

/// Why checkpoint folder `dir` has nothing to resume from ("no such folder", "not a folder",
/// "no complete checkpoint in it", with the newer ones skipped and why), or "" when it has.
std::string nothing_to_resume(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) return "no such folder";
  if (!std::filesystem::is_directory(dir, ec)) return "not a folder (give the checkpoint folder itself)";
  std::vector<std::string> skipped;
  try {
    if (latest_complete(dir, &skipped)) return "";
  } catch (const CheckpointError& e) {
    return e.what();
  }
  std::string why = "no complete checkpoint in it";
  for (const std::string& s : skipped) why += "; " + s;
  return why;
}

std::string this_host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  return buf;
}
}  // namespace

int node_command(const std::vector<std::string>& args) {
  po::options_description desc("node options");
  po::positional_options_description pos;
  add_scenario_options(desc, pos);
  desc.add_options()
      ("role", po::value<std::string>(), "scheduler, server or worker")
      ("scheduler", po::value<std::string>(), "the scheduler's endpoint, tcp://HOST:PORT")
      ("variant", po::value<std::string>(), "which variant (needed when the scenario has several)")
      ("out", po::value<std::string>(), "scheduler: output folder (default runs/<name>/<variant>)")
      ("key-file", po::value<std::string>(), "the job's CURVE key pair (made by launch, or by pstwin keygen)")
      ("insecure", po::bool_switch(), "no authentication (trusted networks only); or PSTWIN_INSECURE=1")
      ("transport", po::value<std::string>()->default_value("zmq"), "zmq, or ucx: servers and workers talk over UCX (needs --insecure)")
      ("advertise", po::value<std::string>(), "host name or address other nodes reach this node at")
      ("bind", po::value<std::string>(), "address, interface or host name to listen on (default: *, every one)")
      ("endpoint-file", po::value<std::string>(), "scheduler: write the endpoint it listens at here")
      ("index", int_at_least(0), "server or worker: register as this index (0-based)")
      ("rejoin", po::bool_switch(), "a restarted server or worker joining its running job (needs --index)")
      ("join", po::bool_switch(), "a server the scenario declares joining ({\"join\": \"server\"}) joining the running job; implied by such a server's --index")
      ("checkpoint-dir", po::value<std::string>(), "scheduler and servers: where checkpoints go")
      ("resume", po::value<std::string>(), "start from the newest complete checkpoint in this folder")
      ("quiet", po::bool_switch(), "no line about the data read, no progress lines, no final table")
      ("connect-timeout", po::value<double>()->default_value(30.0), "scheduler: seconds for every node to register, from the latest one; other nodes: seconds for the scheduler to accept")
      ("stall-timeout", po::value<double>()->default_value(300.0), "seconds a role may wait for anything")
      ("metrics-address", po::value<std::string>()->default_value(net::kDefaultMetricsAddress),
       "scheduler: serve live Prometheus metrics at HOST:PORT (port 0: any free one; none: off)");
  add_device_option(desc, "default: the scenario's training.device, else cpu");
  int code = 0;
  std::set<std::string> from_environment;
  auto vm = parse_args(args, desc, pos, kUsage, code, "PSTWIN_", &from_environment);
  if (!vm) return code;
  // What the user set: the flag, or the PSTWIN_ variable it came from.
  const auto source = [&](const std::string& name) { return flag_source(from_environment, name, "PSTWIN_"); };
  for (const char* required : {"role", "scheduler"}) {
    if (!vm->count(required)) {
      std::cerr << "pstwin node: --" << required << " is required (or PSTWIN_"
                << (std::string(required) == "role" ? "ROLE" : "SCHEDULER") << ")\n" << kUsage << "\n";
      return 2;
    }
  }
  auto scenario = load_scenario_from(*vm, source("set"), source("scenario"));
  if (!scenario) return 2;

  net::NodeOptions options;
  options.role = (*vm)["role"].as<std::string>();
  if (options.role != "scheduler" && options.role != "server" && options.role != "worker") {
    std::cerr << "pstwin node: " << source("role") << " must be scheduler, server or worker, not '" << options.role << "'\n";
    return 2;
  }
  options.scheduler_endpoint = (*vm)["scheduler"].as<std::string>();
  net::TcpEndpoint scheduler;
  try {
    scheduler = net::parse_tcp_endpoint(options.scheduler_endpoint);
  } catch (const std::invalid_argument& e) {
    std::cerr << "pstwin node: " << source("scheduler") << " '" << options.scheduler_endpoint << "': " << e.what() << "\n";
    return 2;
  }
  std::size_t variant_index = 0;
  if (vm->count("variant")) {
    const auto name = (*vm)["variant"].as<std::string>();
    const auto& all = scenario->consistency;
    variant_index = static_cast<std::size_t>(
        std::find_if(all.begin(), all.end(), [&](const ConsistencyVariant& v) { return v.name == name; }) - all.begin());
    if (variant_index == all.size()) {
      std::cerr << "pstwin node: " << source("variant") << ": the scenario has no variant '" << name << "'\n";
      return 2;
    }
  } else if (scenario->consistency.size() > 1) {
    std::cerr << "pstwin node: the scenario has " << scenario->consistency.size()
              << " variants; choose one with --variant\n";
    return 2;
  }
  // From here on the node runs the scenario its variant resolves to (the variant's overrides).
  *scenario = scenario_for_variant(*scenario, variant_index);
  const ConsistencyVariant* variant = &scenario->consistency.front();
  // PSTWIN_INSECURE (as every switch's variable) was read by parse_args: only an unmistakable yes
  // turns authentication off, and a value that is neither yes nor no was refused.
  const bool insecure = (*vm)["insecure"].as<bool>();
  const std::string transport = (*vm)["transport"].as<std::string>();
  if (transport != "zmq" && transport != "ucx") {
    std::cerr << "pstwin node: " << source("transport") << " must be zmq or ucx, not '" << transport << "'\n";
    return 2;
  }
  if (transport == "ucx" && !insecure) {
    std::cerr << "pstwin node: " << source("transport") << " ucx needs --insecure: UCX has no authentication, so "
                 "it is for trusted networks only (--insecure, or PSTWIN_INSECURE=1)\n";
    return 2;
  }
  options.zmq.ucx = transport == "ucx";
  try {
    if (vm->count("key-file") && insecure) {
      std::cerr << "pstwin node: " << source("insecure") << " and " << source("key-file")
                << " contradict each other; choose one\n";
      return 2;
    }
    if (vm->count("key-file")) {
      try {
        options.zmq.keys = net::read_key_file((*vm)["key-file"].as<std::string>());
      } catch (const std::runtime_error& e) {  // named as the user gave it: flag or variable
        std::cerr << "pstwin node: " << source("key-file") << ": " << e.what() << "\n";
        return 2;
      }
    } else if (!insecure) {
      std::cerr << "pstwin node: needs the job's key file (--key-file, PSTWIN_KEY_FILE), or "
                   "--insecure on a trusted network\n";
      return 2;
    }
  } catch (const std::exception& e) {
    std::cerr << "pstwin node: " << e.what() << "\n";
    return 2;
  }
  options.out_dir = vm->count("out") ? (*vm)["out"].as<std::string>()
                                     : (scenario->output.dir.empty() ? "runs/" + scenario->name
                                                                     : scenario->output.dir) +
                                           "/" + variant->name;
  if (vm->count("index")) {
    const int index = (*vm)["index"].as<int>();
    const std::uint32_t count = options.role == "server" ? scenario->cluster.servers
                                                          : scenario->cluster.workers;
    if (options.role == "scheduler" || index < 0 || static_cast<std::uint32_t>(index) >= count) {
      std::cerr << "pstwin node: " << source("index") << " " << index << " does not name a " << options.role
                << " of this scenario (it has " << count << ")\n";
      return 2;
    }
    options.index = index;
  }
  options.rejoin = (*vm)["rejoin"].as<bool>();
  if (options.rejoin && options.index < 0) {
    std::cerr << "pstwin node: " << source("rejoin") << " needs --index (which node restarts)\n";
    return 2;
  }
  // The last servers of a scenario with joins start off the ring: their process joins the running
  // job. Whether --join names one the scenario declares is the scheduler's to say (it refuses).
  const auto joins = std::count_if(scenario->failures.begin(), scenario->failures.end(),
                                   [](const FailureSpec& f) { return f.kind == FailureSpec::Kind::kJoin; });
  options.join = (*vm)["join"].as<bool>() ||
                 (options.role == "server" && options.index >= static_cast<int>(scenario->cluster.servers - joins));
  if (options.join && (options.role != "server" || options.index < 0)) {
    std::cerr << "pstwin node: " << source("join") << " needs --role server and --index (which joining server this is)\n";
    return 2;
  }
  // Names and addresses are tried once the flags are known to go together (a --rejoin without
  // --index is said as such, not as a scheduler that does not resolve).
  // A job on loopback stays there, in the scheduler's address family; otherwise a node listens
  // on every interface, IPv4 and IPv6, and is dialled by its host name.
  const bool local = net::is_loopback_host(scheduler.host);
  const std::string loopback = net::is_ipv6_host(scheduler.host) ? "::1" : "127.0.0.1";
  if (vm->count("bind")) {
    options.bind_host = (*vm)["bind"].as<std::string>();
    if (const std::string why = net::host_only_error(options.bind_host); !why.empty()) {
      std::cerr << "pstwin node: " << source("bind") << " '" << options.bind_host << "': " << why << "\n";
      return 2;
    }
  } else if (options.role != "scheduler") {
    options.bind_host = local ? loopback : "*";  // the scheduler listens at --scheduler's host
  }
  // Where this node listens is tried now, before the output folder is taken or data read: an
  // address of another machine (or a port in use) is the user's to fix, said naming the flag.
  try {
    net::check_listen_here(net::listen_endpoint(options));
  } catch (const std::invalid_argument& e) {
    const std::string what = vm->count("bind") ? source("bind") + " " + options.bind_host
                             : options.role == "scheduler"
                                 ? source("scheduler") + " " + options.scheduler_endpoint +
                                       " (the scheduler listens there; --bind chooses another address)"
                                 : "--bind (by default " + options.bind_host + ")";
    std::cerr << "pstwin node: " << what << ": " << e.what() << "\n";
    return 2;
  }
  if (vm->count("advertise")) {
    // Other nodes dial it: a host alone that names a machine, as launch's --scheduler-host.
    options.advertise_host = (*vm)["advertise"].as<std::string>();
    if (const std::string why = net::dial_host_error(options.advertise_host); !why.empty()) {
      std::cerr << "pstwin node: " << source("advertise") << " '" << options.advertise_host << "': " << why << "\n";
      return 2;
    }
  } else {
    options.advertise_host = local ? loopback : this_host_name();
  }
  if (options.role != "scheduler") {
    // This node dials the scheduler: a port of * or a name that does not resolve is said now,
    // not after the node's timeout.
    std::string why = scheduler.port == "*" ? "a port of * cannot be dialled: give the port the scheduler listens at"
                                            : net::dial_host_error(scheduler.host);
    if (!why.empty()) {
      std::cerr << "pstwin node: " << source("scheduler") << " '" << options.scheduler_endpoint << "': " << why << "\n";
      return 2;
    }
  }
  if (const auto address = (*vm)["metrics-address"].as<std::string>(); options.role != "scheduler") {
    // Only the scheduler serves metrics. Another node ignores the address, so it is not checked
    // either: a value the node never uses must not fail it (a trial's worker refused '[::1]').
    if (!(*vm)["metrics-address"].defaulted())
      std::cerr << "pstwin node (" << options.role << "): " << source("metrics-address")
                << " is ignored: only the scheduler serves live metrics\n";
  } else if (address != "none") {
    // The scheduler checks that it can serve there before anything starts.
    try {
      net::check_metrics_address_here(address);
    } catch (const std::invalid_argument& e) {
      std::cerr << "pstwin node: " << source("metrics-address") << ": " << e.what() << "\n";
      return 2;
    }
    options.metrics_address = address;
  }
  if (vm->count("endpoint-file")) {
    // The scheduler writes it as it starts listening: a path it cannot write is said now.
    const std::string path = (*vm)["endpoint-file"].as<std::string>();
    if (options.role != "scheduler") {
      std::cerr << "pstwin node (" << options.role << "): " << source("endpoint-file")
                << " is ignored: only the scheduler writes its endpoint\n";
    } else if (const std::string why = path.empty() ? "the path is empty" : cannot_write_file(path); !why.empty()) {
      std::cerr << "pstwin node: " << source("endpoint-file") << " " << path << ": " << why << "\n";
      return 2;
    }
  }
  if (vm->count("checkpoint-dir")) {
    options.checkpoint_dir = (*vm)["checkpoint-dir"].as<std::string>();
    if (options.checkpoint_dir.empty()) {
      std::cerr << "pstwin node: " << source("checkpoint-dir") << " is empty: give a folder for the checkpoints\n";
      return 2;
    }
    // The scheduler and the servers write checkpoints minutes into the job: a folder that cannot
    // take them is said now, as calibrate tries its outputs (workers write none).
    if (options.role != "worker") {
      std::error_code ec;
      std::filesystem::create_directories(options.checkpoint_dir, ec);
      const std::string why =
          ec ? "cannot create it: " + ec.message() : cannot_write_file(options.checkpoint_dir + "/.pstwin-probe");
      if (!why.empty()) {
        std::cerr << "pstwin node: " << source("checkpoint-dir") << " " << options.checkpoint_dir << ": " << why
                  << "\n";
        return 2;
      }
    }
  }
  if (vm->count("resume")) {
    options.resume_from = (*vm)["resume"].as<std::string>();
    if (options.resume_from.empty()) {
      std::cerr << "pstwin node: " << source("resume") << " is empty: give the checkpoint folder to resume from\n";
      return 2;
    }
    // The checkpoint is read once the job starts (the scheduler's, after every node registered):
    // a folder with nothing to resume from is the user's to fix, said now rather than then.
    if (const std::string why = nothing_to_resume(options.resume_from); !why.empty()) {
      std::cerr << "pstwin node: " << source("resume") << " " << options.resume_from << ": " << why << "\n";
      return 2;
    }
  }
  const auto connect_timeout_s = seconds_flag(*vm, "connect-timeout", "node", source("connect-timeout"));
  const auto stall_timeout_s = seconds_flag(*vm, "stall-timeout", "node", source("stall-timeout"));
  if (!connect_timeout_s || !stall_timeout_s) return 2;
  options.connect_timeout_s = *connect_timeout_s;
  options.stall_timeout_s = *stall_timeout_s;
  const auto device = requested_device(*vm, scenario->training.device, "node", source("device"));
  if (!device) return 2;
  std::string chosen;
  const auto resolved = resolve_device(*device, "node", &chosen);
  if (!resolved) return 2;
  options.device = *resolved;
  if (*device != "cpu") std::cerr << "pstwin node (" << options.role << "): kernels on " << chosen << "\n";
  options.quiet = (*vm)["quiet"].as<bool>();
  if (options.quiet) options.progress_interval_s = 0;
  // The scheduler writes the outputs: one run at a time per folder, as simulate and launch.
  std::vector<CommandInput> inputs = {{"the scenario", (*vm)["scenario"].as<std::string>()}};
  // launch writes the job key into the folder it gives its scheduler as --out.
  if (vm->count("key-file")) inputs.push_back({source("key-file"), (*vm)["key-file"].as<std::string>(), true});
  const std::string shown_out_dir = vm->count("out") ? source("out") + " " + options.out_dir
                                                     : shown_out(false, options.out_dir);
  if (const std::string why = out_overwrites_input(options.out_dir, shown_out_dir, OutKind::kFolder, inputs, {},
                                                   source("out"));
      options.role == "scheduler" && !why.empty()) {
    std::cerr << "pstwin node: " << why << "\n";
    return 2;
  }
  std::string lock_error;
  const auto lock = options.role == "scheduler"
                        ? OutputLock::take(options.out_dir, "node", lock_error, OutputLock::Scope::kFolderTree,
                                           source("out"))
                        : std::optional<OutputLock>();
  if (options.role == "scheduler" && !lock) {
    std::cerr << "pstwin node: " << lock_error << "\n";
    return 2;
  }
  // A scheduler stopped (Ctrl-C, its launcher) still writes what it has; the other roles wait a
  // while for its stop (the same signal reached it), to end in order and tell it what they did.
  std::optional<net::StopRequest> stop;
  std::optional<StopOnSignals> signals;
  std::optional<NodeStopGrace> grace;
  if (options.role == "scheduler") {
    stop.emplace();
    signals.emplace(*stop);
    options.zmq.stop = &*stop;
  } else {
    grace.emplace();
    options.stopped = [&grace] { return grace->signal() != 0; };
  }
  try {
    if (options.role == "scheduler" && vm->count("endpoint-file")) {
      // The scheduler binds inside run_zmq_node; publish its endpoint as soon as it is known.
      options.on_listening = [path = (*vm)["endpoint-file"].as<std::string>(),
                              shown = source("endpoint-file")](const std::string& ep) {
        try {
          write_file_atomically(path, ep + "\n");
        } catch (const std::exception& e) {  // tried above; the folder went since
          throw std::runtime_error(shown + ": " + e.what());
        }
      };
    }
    // The live metrics' URL in OUT/metrics.url for tools that watch the job, and on stderr
    // unless --quiet (launch, which quiets its scheduler, says it itself).
    options.on_metrics = [&options](const std::string& url) {
      if (!options.quiet) std::cerr << "pstwin node (scheduler): live metrics at " << url << "\n";
      write_file_atomically(options.out_dir + "/metrics.url", url + "\n");
    };
    const nlohmann::json summary = net::run_zmq_node(*scenario, *variant, options);
    // A signal that came once training was over stopped nothing: said as a stop would be.
    if (signals && signals->signal() != 0 && summary.value("completed", false))
      std::cerr << "pstwin node (" << options.role << "): the job had completed when it was stopped by SIG"
                << sigabbrev_np(signals->signal()) << "\n";
  } catch (const JobStopped& e) {
    std::cerr << "pstwin node (" << options.role << "): " << e.what() << "\n";
    print_final_table(options, *variant);
    return 128 + signals->signal();
  } catch (const net::TransportUnavailable& e) {  // this machine's fault, not the variant's
    std::cerr << "pstwin node (" << options.role << "): " << e.what() << "\n";
    print_final_table(options, *variant);
    return net::kTransportUnavailableExit;
  } catch (const net::RegistrationRefused& e) {
    std::cerr << "pstwin node (" << options.role << "): " << e.what() << "\n";
    return 2;
  } catch (const DataError& e) {
    std::cerr << "pstwin node (" << options.role << "): bad data: " << e.what() << "\n";
    print_final_table(options, *variant);
    return 2;
  } catch (const net::NodeDataRefused& e) {  // the scheduler: a node's data is bad
    std::cerr << "pstwin node (" << options.role << "): bad data: " << e.what() << "\n";
    print_final_table(options, *variant);
    return 2;
  } catch (const ScenarioError& e) {
    std::cerr << "pstwin node (" << options.role << "): invalid scenario: " << e.what()
              << override_note(overrides_of(vm->count("set") ? (*vm)["set"].as<std::vector<std::string>>()
                                                             : std::vector<std::string>(),
                                            source("set")),
                               e.pointer(), e.what())
              << "\n";
    print_final_table(options, *variant);
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "pstwin node (" << options.role << "): " << e.what() << "\n";
    print_final_table(options, *variant);
    return 1;
  }
  print_final_table(options, *variant);
  // A server or worker that its scheduler stopped after a signal: stopped, as the scheduler is.
  if (grace && grace->signal() != 0) return 128 + grace->signal();
  return 0;
}

}  // namespace pstwin::cli
