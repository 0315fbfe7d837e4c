// `pstwin node`'s flags, and the node they describe: every flag checked, and every name, address
// and file tried, before the node registers or reads data.
#include "cli/node_flags.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "cli/device_option.h"
#include "cli/flag_source.h"
#include "cli/flag_values.h"
#include "cli/output_probe.h"
#include "cli/scenario_options.h"
#include "net/curve_keys.h"
#include "net/listen_check.h"
#include "net/live_metrics.h"
#include "net/metrics_address.h"
#include "net/tcp_address.h"
#include "runtime/checkpoint/checkpoint_dir.h"

namespace po = boost::program_options;

namespace pstwin::cli {

namespace {

/// How the user gave a flag: "--out", or the PSTWIN_ variable it came from.
using Source = std::function<std::string(const std::string&)>;

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

/// --variant: the scenario becomes the one its variant resolves to (the variant's overrides).
bool choose_variant(const po::variables_map& vm, const Source& source, Scenario& scenario) {
  std::size_t variant_index = 0;
  if (vm.count("variant")) {
    const auto name = vm["variant"].as<std::string>();
    const auto& all = scenario.consistency;
    variant_index = static_cast<std::size_t>(
        std::find_if(all.begin(), all.end(), [&](const ConsistencyVariant& v) { return v.name == name; }) - all.begin());
    if (variant_index == all.size()) {
      std::cerr << "pstwin node: " << source("variant") << ": the scenario has no variant '" << name << "'\n";
      return false;
    }
  } else if (scenario.consistency.size() > 1) {
    std::cerr << "pstwin node: the scenario has " << scenario.consistency.size()
              << " variants; choose one with --variant\n";
    return false;
  }
  // From here on the node runs the scenario its variant resolves to (the variant's overrides).
  scenario = scenario_for_variant(scenario, variant_index);
  return true;
}

/// --transport, --insecure and --key-file.
bool read_transport_and_keys(const po::variables_map& vm, const Source& source, net::NodeOptions& options) {
  // PSTWIN_INSECURE (as every switch's variable) was read by parse_args: only an unmistakable yes
  // turns authentication off, and a value that is neither yes nor no was refused.
  const bool insecure = vm["insecure"].as<bool>();
  const std::string transport = vm["transport"].as<std::string>();
  if (transport != "zmq" && transport != "ucx") {
    std::cerr << "pstwin node: " << source("transport") << " must be zmq or ucx, not '" << transport << "'\n";
    return false;
  }
  if (transport == "ucx" && !insecure) {
    std::cerr << "pstwin node: " << source("transport") << " ucx needs --insecure: UCX has no authentication, so "
                 "it is for trusted networks only (--insecure, or PSTWIN_INSECURE=1)\n";
    return false;
  }
  options.zmq.ucx = transport == "ucx";
  try {
    if (vm.count("key-file") && insecure) {
      std::cerr << "pstwin node: " << source("insecure") << " and " << source("key-file")
                << " contradict each other; choose one\n";
      return false;
    }
    if (vm.count("key-file")) {
      try {
        options.zmq.keys = net::read_key_file(vm["key-file"].as<std::string>());
      } catch (const std::runtime_error& e) {  // named as the user gave it: flag or variable
        std::cerr << "pstwin node: " << source("key-file") << ": " << e.what() << "\n";
        return false;
      }
    } else if (!insecure) {
      std::cerr << "pstwin node: needs the job's key file (--key-file, PSTWIN_KEY_FILE), or "
                   "--insecure on a trusted network\n";
      return false;
    }
  } catch (const std::exception& e) {
    std::cerr << "pstwin node: " << e.what() << "\n";
    return false;
  }
  return true;
}

/// --out, --index, --rejoin and --join: where the outputs go and which node this is.
bool read_identity(const po::variables_map& vm, const Source& source, const Scenario& scenario,
                   net::NodeOptions& options) {
  options.out_dir = vm.count("out") ? vm["out"].as<std::string>()
                                     : (scenario.output.dir.empty() ? "runs/" + scenario.name
                                                                     : scenario.output.dir) +
                                           "/" + scenario.consistency.front().name;
  if (vm.count("index")) {
    const int index = vm["index"].as<int>();
    const std::uint32_t count = options.role == "server" ? scenario.cluster.servers
                                                          : scenario.cluster.workers;
    if (options.role == "scheduler" || index < 0 || static_cast<std::uint32_t>(index) >= count) {
      std::cerr << "pstwin node: " << source("index") << " " << index << " does not name a " << options.role
                << " of this scenario (it has " << count << ")\n";
      return false;
    }
    options.index = index;
  }
  options.rejoin = vm["rejoin"].as<bool>();
  if (options.rejoin && options.index < 0) {
    std::cerr << "pstwin node: " << source("rejoin") << " needs --index (which node restarts)\n";
    return false;
  }
  // The last servers of a scenario with joins start off the ring: their process joins the running
  // job. Whether --join names one the scenario declares is the scheduler's to say (it refuses).
  const auto joins = std::count_if(scenario.failures.begin(), scenario.failures.end(),
                                   [](const FailureSpec& f) { return f.kind == FailureSpec::Kind::kJoin; });
  options.join = vm["join"].as<bool>() ||
                 (options.role == "server" && options.index >= static_cast<int>(scenario.cluster.servers - joins));
  if (options.join && (options.role != "server" || options.index < 0)) {
    std::cerr << "pstwin node: " << source("join") << " needs --role server and --index (which joining server this is)\n";
    return false;
  }
  return true;
}

/// --bind, --advertise, the scheduler's address and --metrics-address, each tried here.
bool read_addresses(const po::variables_map& vm, const Source& source, const net::TcpEndpoint& scheduler,
                    net::NodeOptions& options) {
  // Names and addresses are tried once the flags are known to go together (a --rejoin without
  // --index is said as such, not as a scheduler that does not resolve).
  // A job on loopback stays there, in the scheduler's address family; otherwise a node listens
  // on every interface, IPv4 and IPv6, and is dialled by its host name.
  const bool local = net::is_loopback_host(scheduler.host);
  const std::string loopback = net::is_ipv6_host(scheduler.host) ? "::1" : "127.0.0.1";
  if (vm.count("bind")) {
    options.bind_host = vm["bind"].as<std::string>();
    if (const std::string why = net::host_only_error(options.bind_host); !why.empty()) {
      std::cerr << "pstwin node: " << source("bind") << " '" << options.bind_host << "': " << why << "\n";
      return false;
    }
  } else if (options.role != "scheduler") {
    options.bind_host = local ? loopback : "*";  // the scheduler listens at --scheduler's host
  }
  // Where this node listens is tried now, before the output folder is taken or data read: an
  // address of another machine (or a port in use) is the user's to fix, said naming the flag.
  try {
    net::check_listen_here(net::listen_endpoint(options));
  } catch (const std::invalid_argument& e) {
    const std::string what = vm.count("bind") ? source("bind") + " " + options.bind_host
                             : options.role == "scheduler"
                                 ? source("scheduler") + " " + options.scheduler_endpoint +
                                       " (the scheduler listens there; --bind chooses another address)"
                                 : "--bind (by default " + options.bind_host + ")";
    std::cerr << "pstwin node: " << what << ": " << e.what() << "\n";
    return false;
  }
  if (vm.count("advertise")) {
    // Other nodes dial it: a host alone that names a machine, as launch's --scheduler-host.
    options.advertise_host = vm["advertise"].as<std::string>();
    if (const std::string why = net::dial_host_error(options.advertise_host); !why.empty()) {
      std::cerr << "pstwin node: " << source("advertise") << " '" << options.advertise_host << "': " << why << "\n";
      return false;
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
      return false;
    }
  }
  if (const auto address = vm["metrics-address"].as<std::string>(); options.role != "scheduler") {
    // Only the scheduler serves metrics. Another node ignores the address, so it is not checked
    // either: a value the node never uses must not fail it (a trial's worker refused '[::1]').
    if (!vm["metrics-address"].defaulted())
      std::cerr << "pstwin node (" << options.role << "): " << source("metrics-address")
                << " is ignored: only the scheduler serves live metrics\n";
  } else if (address != "none") {
    // The scheduler checks that it can serve there before anything starts.
    try {
      net::check_metrics_address_here(address);
    } catch (const std::invalid_argument& e) {
      std::cerr << "pstwin node: " << source("metrics-address") << ": " << e.what() << "\n";
      return false;
    }
    options.metrics_address = address;
  }
  return true;
}

/// --endpoint-file, --checkpoint-dir and --resume: folders and files tried before the job starts.
bool read_files(const po::variables_map& vm, const Source& source, net::NodeOptions& options) {
  if (vm.count("endpoint-file")) {
    // The scheduler writes it as it starts listening: a path it cannot write is said now.
    const std::string path = vm["endpoint-file"].as<std::string>();
    if (options.role != "scheduler") {
      std::cerr << "pstwin node (" << options.role << "): " << source("endpoint-file")
                << " is ignored: only the scheduler writes its endpoint\n";
    } else if (const std::string why = path.empty() ? "the path is empty" : cannot_write_file(path); !why.empty()) {
      std::cerr << "pstwin node: " << source("endpoint-file") << " " << path << ": " << why << "\n";
      return false;
    }
  }
  if (vm.count("checkpoint-dir")) {
    options.checkpoint_dir = vm["checkpoint-dir"].as<std::string>();
    if (options.checkpoint_dir.empty()) {
      std::cerr << "pstwin node: " << source("checkpoint-dir") << " is empty: give a folder for the checkpoints\n";
      return false;
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
        return false;
      }
    }
  }
  if (vm.count("resume")) {
    options.resume_from = vm["resume"].as<std::string>();
    if (options.resume_from.empty()) {
      std::cerr << "pstwin node: " << source("resume") << " is empty: give the checkpoint folder to resume from\n";
      return false;
    }
    // The checkpoint is read once the job starts (the scheduler's, after every node registered):
    // a folder with nothing to resume from is the user's to fix, said now rather than then.
    if (const std::string why = nothing_to_resume(options.resume_from); !why.empty()) {
      std::cerr << "pstwin node: " << source("resume") << " " << options.resume_from << ": " << why << "\n";
      return false;
    }
  }
  return true;
}

/// --connect-timeout, --stall-timeout, --device and --quiet.
bool read_run_settings(const po::variables_map& vm, const Source& source, const Scenario& scenario,
                       net::NodeOptions& options) {
  const auto connect_timeout_s = seconds_flag(vm, "connect-timeout", "node", source("connect-timeout"));
  const auto stall_timeout_s = seconds_flag(vm, "stall-timeout", "node", source("stall-timeout"));
  if (!connect_timeout_s || !stall_timeout_s) return false;
  options.connect_timeout_s = *connect_timeout_s;
  options.stall_timeout_s = *stall_timeout_s;
  const auto device = requested_device(vm, scenario.training.device, "node", source("device"));
  if (!device) return false;
  std::string chosen;
  const auto resolved = resolve_device(*device, "node", &chosen);
  if (!resolved) return false;
  options.device = *resolved;
  if (*device != "cpu") std::cerr << "pstwin node (" << options.role << "): kernels on " << chosen << "\n";
  options.quiet = vm["quiet"].as<bool>();
  if (options.quiet) options.progress_interval_s = 0;
  return true;
}

}  // namespace

void add_node_options(po::options_description& desc, po::positional_options_description& pos) {
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
}

std::optional<NodeFlags> node_flags(const po::variables_map& vm, const std::set<std::string>& from_environment,
                                    const char* usage) {
  const Source source = [&](const std::string& name) { return flag_source(from_environment, name, "PSTWIN_"); };
  for (const char* required : {"role", "scheduler"}) {
    if (!vm.count(required)) {
      std::cerr << "pstwin node: --" << required << " is required (or PSTWIN_"
                << (std::string(required) == "role" ? "ROLE" : "SCHEDULER") << ")\n" << usage << "\n";
      return std::nullopt;
    }
  }
  auto scenario = load_scenario_from(vm, source("set"), source("scenario"));
  if (!scenario) return std::nullopt;

  net::NodeOptions options;
  options.role = vm["role"].as<std::string>();
  if (options.role != "scheduler" && options.role != "server" && options.role != "worker") {
    std::cerr << "pstwin node: " << source("role") << " must be scheduler, server or worker, not '" << options.role << "'\n";
    return std::nullopt;
  }
  options.scheduler_endpoint = vm["scheduler"].as<std::string>();
  net::TcpEndpoint scheduler;
  try {
    scheduler = net::parse_tcp_endpoint(options.scheduler_endpoint);
  } catch (const std::invalid_argument& e) {
    std::cerr << "pstwin node: " << source("scheduler") << " '" << options.scheduler_endpoint << "': " << e.what() << "\n";
    return std::nullopt;
  }
  if (!choose_variant(vm, source, *scenario) || !read_transport_and_keys(vm, source, options) ||
      !read_identity(vm, source, *scenario, options) || !read_addresses(vm, source, scheduler, options) ||
      !read_files(vm, source, options) || !read_run_settings(vm, source, *scenario, options))
    return std::nullopt;
  return NodeFlags{std::move(*scenario), std::move(options)};
}

}  // namespace pstwin::cli
