// `pstwin node`: one role of a real job, in this process, over ZeroMQ (and UCX for the data plane
// with --transport ucx).
#include <string.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>

#include "cli/commands.h"
#include "cli/comparison.h"
#include "cli/flag_source.h"
#include "cli/output_lock.h"
#include "cli/output_over_input.h"
#include "cli/output_probe.h"
#include "cli/override_note.h"
#include "cli/node_flags.h"
#include "cli/node_stop_grace.h"
#include "cli/scenario_options.h"
#include "cli/stop_signals.h"
#include "net/real_job.h"
#include "net/transport_unavailable.h"
#include "net/zmq_env.h"
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

}  // namespace

int node_command(const std::vector<std::string>& args) {
  po::options_description desc("node options");
  po::positional_options_description pos;
  add_node_options(desc, pos);
  int code = 0;
  std::set<std::string> from_environment;
  auto vm = parse_args(args, desc, pos, kUsage, code, "PSTWIN_", &from_environment);
  if (!vm) return code;
  // What the user set: the flag, or the PSTWIN_ variable it came from.
  const auto source = [&](const std::string& name) { return flag_source(from_environment, name, "PSTWIN_"); };
  auto flags = node_flags(*vm, from_environment, kUsage);
  if (!flags) return 2;
  const Scenario& scenario = flags->scenario;
  net::NodeOptions& options = flags->options;
  const ConsistencyVariant* variant = &scenario.consistency.front();
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
    const nlohmann::json summary = net::run_zmq_node(scenario, *variant, options);
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
