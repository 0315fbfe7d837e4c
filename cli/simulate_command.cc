#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "cli/command_name.h"
#include "cli/commands.h"
#include "cli/comparison.h"
#include "cli/earlier_outputs.h"
#include "cli/device_option.h"
#include "cli/flag_values.h"
#include "cli/memory_fit.h"
#include "cli/output_lock.h"
#include "cli/output_over_input.h"
#include "cli/run_checks.h"
#include "cli/scenario_options.h"
#include "cli/simgrid_cfg_option.h"
#include "cli/stop_signals.h"
#include "cli/stopped_summary.h"
#include "cli/variant_processes.h"
#include "runtime/count_text.h"
#include "runtime/errors.h"
#include "runtime/job_setup.h"
#include "runtime/output/summary.h"
#include "sim/simgrid_options.h"
#include "sim/simulation.h"

namespace po = boost::program_options;

namespace pstwin::cli {

namespace {
constexpr const char* kUsage =
    "usage: pstwin simulate SCENARIO.json [--out DIR] [--set /ptr=value ...] [--jobs N] [--quiet]\n"
    "                       [--device auto|cpu|cuda] [--cfg NAME:VALUE ...]\n"
    "Runs each variant of the scenario in SimGrid (one child process each) and\n"
    "prints a comparison. Outputs: DIR/<variant>/{metrics.csv,events.jsonl,summary.json} and\n"
    "DIR/comparison.csv; DIR defaults to the scenario's output.dir (runs/<name>; launch's default\n"
    "adds -launch). One run at a time per output folder: a second one is refused (status 2).\n"
    "--cfg gives SimGrid's engine one of its own options, as any SimGrid program takes them,\n"
    "after the scenario's simulation.cfg list (the last value of a name wins). Useful ones:\n"
    "  contexts/factory:thread|ucontext|raw|boost  how actors switch (raw is the default)\n"
    "  network/model:LV08|CM02|SMPI|IB           the network model (LV08 is the default)\n"
    "  network/crosstraffic:0|1                   flows' acks load the reverse direction (1)\n"
    "  network/TCP-gamma:BYTES                    TCP window bounding a flow's rate (4194304)\n"
    "  maxmin/precision:X  surf/precision:X       solver tolerances (1e-05, 1e-09)\n"
    "SimGrid checks each in a child process first; one it refuses is an error (status 2).";
}  // namespace

int simulate_command(const std::vector<std::string>& args) {
  // Ctrl-C, SIGTERM or SIGHUP stop the variants and still write what finished (README, "Commands"):
  // taken before any thread starts (a GPU's runtime starts some), as launch does.
  net::StopRequest stop;
  const StopOnSignalsInHandler signals(stop);
  po::options_description desc("simulate options");
  po::positional_options_description pos;
  add_scenario_options(desc, pos);
  desc.add_options()
      ("out,o", po::value<std::string>(), "output folder")
      ("jobs,j", int_at_least(1), "variants to run at once (default: number of cores)")
      ("quiet,q", "no progress line");
  // Simulated time comes from the cluster's device specs; this only moves the real math.
  add_device_option(desc, "default cpu (the scenario's training.device is for real runs)");
  add_simgrid_cfg_option(desc);
  int code = 0;
  auto vm = parse_args(args, desc, pos, kUsage, code);
  if (!vm) return code;
  auto scenario = load_scenario_from(*vm);
  if (!scenario) return 2;
  if (!take_simgrid_options(*vm, *scenario)) return 2;
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  if (vm->count("jobs")) jobs = static_cast<unsigned>((*vm)["jobs"].as<int>());  // at least 1 (int_at_least)
  const std::string out = vm->count("out") ? (*vm)["out"].as<std::string>()
                                           : (scenario->output.dir.empty()
                                                  ? "runs/" + scenario->name
                                                  : scenario->output.dir);

  const auto requested = requested_device(*vm, "cpu", "simulate");
  if (!requested) return 2;
  std::string chosen;
  const auto device = resolve_device(*requested, "simulate", &chosen);
  if (!device) return 2;

  // What validate checks, with its messages, before the data is read whole.
  if (!check_runs_or_report(*vm, *scenario, /*read_whole=*/false)) return 2;
  // Data is read once here per distinct data set; the children share it copy-on-write after fork.
  const auto runs = resolve_variants_or_report(*vm, *scenario, /*load_data=*/true);
  if (!runs) return 2;
  // Every variant's job lives in one process, up to --jobs of them at once: one that cannot fit
  // in this machine's memory is refused now, not found by the kernel's OOM killer mid-run.
  if (const std::string why = memory_refusal(prepared_memory(*scenario, *runs),
                                             std::min<unsigned>(jobs, static_cast<unsigned>(runs->scenarios.size())),
                                             machine_memory_bytes());
      !why.empty()) {
    std::cerr << "pstwin simulate: " << why << "\n";
    return 2;
  }
  if (const std::string why = out_overwrites_input(out, shown_out(vm->count("out") > 0, out), OutKind::kFolder,
                                                   {{"the scenario", (*vm)["scenario"].as<std::string>()}});
      !why.empty()) {
    std::cerr << "pstwin simulate: " << why << "\n";
    return 2;
  }
  std::string lock_error;
  const auto lock = OutputLock::take(out, "simulate", lock_error);
  if (!lock) {
    std::cerr << "pstwin simulate: " << lock_error << "\n";
    return 2;
  }
  // Said once the run is sure to start: a refused run says only why (CliOutputLock).
  if (*requested != "cpu") std::cerr << "simulate: kernels on " << chosen << "\n";
  if (!scenario->simulation.cfg.empty()) {
    std::cerr << "simulate: SimGrid options";
    for (const auto& option : scenario->simulation.cfg) std::cerr << " " << option;
    std::cerr << "\n";
  }
  std::error_code ec;

  std::vector<std::string> names;
  for (const auto& v : scenario->consistency) names.push_back(v.name);
  // An earlier run's files must not stand in for a variant whose process dies or is stopped
  // this time (plot_runs.py would draw its curves), nor its report and figures for this run.
  remove_earlier_outputs(out, names);
  const auto status = run_variant_processes(
      names, jobs,
      [&](std::size_t i, const std::function<void(double, double)>& report) {
        try {
          const Scenario& run = runs->scenarios[i];
          simulate_variant(run, run.consistency.front(), runs->prepared_for(i), out + "/" + names[i],
                           report, *device);
        } catch (const SimGridOptionError& e) {  // checked above already; bad input all the same
          std::cerr << error_prefix() << "variant " << names[i] << ": " << e.what() << "\n";
          return 2;
        }
        return 0;
      },
      vm->count("quiet") > 0, {}, &stop);

  std::vector<int> exit_codes;
  for (std::size_t i = 0; i < status.size(); ++i) {
    exit_codes.push_back(status[i].stopped ? 128 + signals.signal() : status[i].exit_code);
    const std::string dir = out + "/" + names[i];
    if (status[i].pid > 0 && status[i].exit_code != 0) tidy_variant_folder(dir, status[i].pid);
    if (exit_codes.back() != 0 && !std::filesystem::exists(dir + "/summary.json")) {
      std::filesystem::create_directories(dir, ec);
      // A stopped variant says so, with the figures it reached; one that ended by itself failed.
      write_summary(dir, status[i].stopped
                             ? stopped_variant_summary(runs->scenarios[i], status[i], dir, *stop.reason(),
                                                       stop.signal_name())
                             : unfinished_summary(runs->scenarios[i], "simulated",
                                                  "the simulation " + status[i].end.text() +
                                                      " before writing a summary (see its messages above)"));
    }
  }
  const int result = report_comparison(*scenario, out, names, exit_codes);
  if (const auto why = stop.reason()) {
    const auto finished = std::count_if(status.begin(), status.end(), [](const VariantStatus& s) { return s.done; });
    std::cerr << "pstwin simulate: " << *why << ": " << finished << " of " << count_text(names.size(), "variant")
              << " finished; their outputs and the others' summaries are in " << out << "\n";
    return 128 + signals.signal();
  }
  return result;
}

}  // namespace pstwin::cli
