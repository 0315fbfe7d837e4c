// pstwin sweep: a scenario run over a grid of settings x seeds x variants, one child process per
// run, resuming where an interrupted sweep stopped, with one sweep.csv for all of it.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <thread>

#include "cli/command_name.h"
#include "cli/commands.h"
#include "cli/earlier_outputs.h"
#include "cli/flag_values.h"
#include "cli/memory_fit.h"
#include "cli/output_lock.h"
#include "cli/output_over_input.h"
#include "cli/scenario_options.h"
#include "cli/simgrid_cfg_option.h"
#include "cli/stop_signals.h"
#include "cli/stopped_summary.h"
#include "cli/sweep_csv.h"
#include "cli/sweep_limits.h"
#include "cli/sweep_plan.h"
#include "cli/sweep_variants.h"
#include "cli/variant_processes.h"
#include "runtime/count_text.h"
#include "runtime/output/summary.h"
#include "sim/simgrid_options.h"

namespace po = boost::program_options;

namespace pstwin::cli {

namespace {
constexpr const char* kUsage =
    "usage: pstwin sweep SCENARIO.json --grid /ptr=v1,v2,... [--grid ...] [--seeds N] [--jobs N]\n"
    "                    [--out DIR] [--set /ptr=value ...] [--cfg NAME:VALUE ...] [--quiet]\n"
    "Runs every combination of the --grid values (read as JSON like --set, else as strings)\n"
    "with N seeds (the scenario's seed + 0..N-1) and each of the scenario's variants, one child\n"
    "process per run, --jobs at once. Each run goes in DIR/<pointer=value_...>_seed=S/<variant>/;\n"
    "a run folder whose summary.json says it completed with the same settings is kept, not run\n"
    "again, so an interrupted sweep resumes (a folder of other settings is an error). Writes\n"
    "DIR/sweep.csv, one row per run; DIR defaults to the scenario's output.dir + \"-sweep\".\n"
    "At most 10000 runs per sweep. Ctrl-C stops the runs and still writes sweep.csv.\n"
    "Figures: /usr/bin/python3 analysis/plot_sweep.py DIR";

/// "3/12 done, 2 running, 1 failed": the whole sweep on one line, however many runs it has.
std::string sweep_status_line(const std::vector<VariantStatus>& status) {
  std::size_t done = 0, running = 0, failed = 0;
  for (const auto& st : status) {
    done += st.done ? 1 : 0;
    running += st.running ? 1 : 0;
    failed += st.done && st.exit_code != 0 ? 1 : 0;
  }
  std::ostringstream line;
  line << done << "/" << status.size() << " done, " << running << " running";
  if (failed) line << ", " << failed << " failed";
  return line.str();
}
}  // namespace

int sweep_command(const std::vector<std::string>& args) {
  // As simulate: a signal stops the runs and still writes sweep.csv (README, "Sweeps").
  net::StopRequest stop;
  const StopOnSignalsInHandler signals(stop);
  po::options_description desc("sweep options");
  po::positional_options_description pos;
  add_scenario_options(desc, pos);
  desc.add_options()
      ("grid,g", po::value<std::vector<std::string>>()->composing(),
       "a swept value list: --grid /json/pointer=v1,v2,... (repeatable; the cross product runs)")
      ("seeds", int_at_least(1)->default_value(1), "seeds per grid point: the scenario's seed + 0..N-1")
      ("out,o", po::value<std::string>(), "output folder (default: the scenario's output.dir + \"-sweep\")")
      ("jobs,j", int_at_least(1), "runs at once (default: number of cores)")
      ("quiet,q", "no progress line");
  add_simgrid_cfg_option(desc);
  int code = 0;
  auto vm = parse_args(args, desc, pos, kUsage, code);
  if (!vm) return code;
  const int seeds = (*vm)["seeds"].as<int>();  // at least 1, as parse_args read it (int_at_least)
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  if (vm->count("jobs")) jobs = static_cast<unsigned>((*vm)["jobs"].as<int>());
  std::vector<GridAxis> axes;
  try {
    if (vm->count("grid"))
      for (const auto& text : (*vm)["grid"].as<std::vector<std::string>>()) axes.push_back(parse_grid_axis(text));
  } catch (const std::invalid_argument& e) {
    std::cerr << error_prefix() << e.what() << "\n";
    return 2;
  }
  if (axes.empty()) {
    std::cerr << error_prefix() << "sweep needs at least one --grid /json/pointer=v1,v2,... (simulate runs one point)\n";
    return 2;
  }
  for (const GridAxis& axis : axes)
    for (const char* whole : {"/name", "/output", "/variants"})
      if (axis.pointer == whole || axis.pointer.rfind(std::string(whole) + "/", 0) == 0) {
        std::cerr << error_prefix() << "--grid " << axis.pointer << ": " << whole
                  << " belongs to the whole comparison and cannot be swept\n";
        return 2;
      }
  for (std::size_t i = 0; i < axes.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (axes[i].pointer == axes[j].pointer) {
        std::cerr << error_prefix() << "--grid " << axes[i].pointer << " is given twice; list all its values in one\n";
        return 2;
      }
  auto scenario = load_scenario_from(*vm);
  if (!scenario) return 2;
  // Before the plan holds every point: a huge grid is refused, not allocated.
  const std::size_t variant_count = sweep_variant_names(*scenario).size();
  for (const std::string& why : {sweep_size_problem(axes, static_cast<std::uint64_t>(seeds), variant_count),
                                 seed_range_problem(scenario->seed, static_cast<std::uint64_t>(seeds))})
    if (!why.empty()) {
      std::cerr << "pstwin sweep: " << why << "\n";
      return 2;
    }
  // A variant that sets a swept value (or what holds it, or a part of it) would run at its own
  // value while sweep.csv and the figures show the grid's.
  if (const auto variants = scenario->source.find("variants"); variants != scenario->source.end())
    for (const auto& v : *variants)
      if (const auto set = v.find("set"); set != v.end() && set->is_object())
        for (const auto& [key, value] : set->items())
          for (const GridAxis& axis : axes)
            if (key == axis.pointer || axis.pointer.rfind(key + "/", 0) == 0 || key.rfind(axis.pointer + "/", 0) == 0) {
              std::cerr << error_prefix() << "--grid " << axis.pointer << ": variant \"" << v.value("name", std::string("?"))
                        << "\" sets " << key << " itself, so its runs would not follow the grid; sweep "
                        << "another pointer or remove it from that variant's \"set\"\n";
              return 2;
            }
  const std::string out = vm->count("out") ? (*vm)["out"].as<std::string>() : scenario->output.dir + "-sweep";
  std::vector<std::string> sets;
  if (vm->count("set")) sets = (*vm)["set"].as<std::vector<std::string>>();

  // The lock comes before the plan reads which runs the folder holds, and before anything is
  // said about them (a trial's sweep printed "running 12" and then was refused). A folder made
  // only to hold the lock goes again when the grid turns out invalid.
  if (const std::string why = out_overwrites_input(out, shown_out(vm->count("out") > 0, out), OutKind::kFolder,
                                                   {{"the scenario", (*vm)["scenario"].as<std::string>()}});
      !why.empty()) {
    std::cerr << "pstwin sweep: " << why << "\n";
    return 2;
  }
  std::error_code ec;
  const bool folder_was_there = std::filesystem::exists(out, ec);
  std::string lock_error;
  const auto lock = OutputLock::take(out, "sweep", lock_error);
  if (!lock) {
    std::cerr << "pstwin sweep: " << lock_error << "\n";
    return 2;
  }
  SweepPlan plan;
  try {
    plan = make_sweep_plan((*vm)["scenario"].as<std::string>(), sets, axes, static_cast<unsigned>(seeds), out);
  } catch (const SweepPlanError& e) {
    std::cerr << error_prefix() << e.what() << "\n";
    if (!folder_was_there) std::filesystem::remove_all(out, ec);
    return 2;
  }
  std::vector<std::size_t> to_run;
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < plan.runs.size(); ++i)
    if (!plan.runs[i].complete) {
      to_run.push_back(i);
      labels.push_back(plan.settings[plan.runs[i].setting].folder + "/" + plan.runs[i].variant_name);
    }
  // Each run's job lives in one process, up to --jobs at once: one that cannot fit in this
  // machine's memory is refused before any starts.
  std::vector<RunMemory> memory;
  for (const std::size_t i : to_run) {
    const SweepRun& run = plan.runs[i];
    const auto& known = plan.settings[run.setting].memory;
    if (run.variant >= known.size()) continue;
    memory.push_back(known[run.variant]);
    memory.back().run = plan.settings[run.setting].folder + "/" + run.variant_name;  // as its folder
  }
  if (const std::string why = memory_refusal(memory, std::min<unsigned>(jobs, static_cast<unsigned>(to_run.size())),
                                             machine_memory_bytes());
      !why.empty()) {
    std::cerr << "pstwin sweep: " << why << "\n";
    if (!folder_was_there) std::filesystem::remove_all(out, ec);
    return 2;
  }
  // SimGrid's options (PSTWIN_SIMGRID_CFG, the scenario's, --cfg), checked before anything runs.
  for (SweepSetting& setting : plan.settings)
    if (!take_simgrid_options(*vm, setting.scenario)) {
      if (!folder_was_there) std::filesystem::remove_all(out, ec);
      return 2;
    }
  std::cout << "sweep " << scenario->name << ": " << count_text(plan.points.size(), "grid point") << " x "
            << count_text(static_cast<std::uint64_t>(seeds), "seed") << " x " << count_text(variant_count, "variant") << " = "
            << count_text(plan.runs.size(), "run") << "; "
            << plan.runs.size() - to_run.size() << " already complete in " << out << ", running "
            << to_run.size() << "\n"
            << std::flush;

  // sweep.csv is written again: figures drawn of the earlier one would contradict it.
  if (!to_run.empty()) remove_earlier_figures(out);
  const auto status = run_variant_processes(
      labels, jobs,
      [&](std::size_t i, const std::function<void(double, double)>& report) {
        const SweepRun& run = plan.runs[to_run[i]];
        // What an interrupted or failed run left must not mix with the new one's outputs.
        std::filesystem::remove_all(run.dir);
        try {
          return simulate_sweep_variant(plan.settings[run.setting].scenario, run.variant, run.dir, report);
        } catch (const SimGridOptionError& e) {
          std::cerr << error_prefix() << labels[i] << ": " << e.what() << "\n";
          return 2;
        }
      },
      vm->count("quiet") > 0, sweep_status_line, &stop);
  for (std::size_t i = 0; i < status.size(); ++i) {
    if (status[i].pid > 0 && status[i].exit_code != 0) tidy_variant_folder(plan.runs[to_run[i]].dir, status[i].pid);
    if (status[i].stopped) {
      // A run cut short says why; with its settings recorded, the next sweep runs it again.
      // One never started says so too (as simulate's do), so that every run sweep.csv lists has
      // a folder whose summary names why it has no results.
      const SweepRun& run = plan.runs[to_run[i]];
      const auto& scenario_of_run = plan.settings[run.setting].scenario;
      auto summary = stopped_variant_summary(scenario_for_variant(scenario_of_run, run.variant), status[i], run.dir,
                                             *stop.reason(), stop.signal_name());
      summary["variant"] = run.variant_name;
      summary["config"] = recorded_config(scenario_of_run, run.variant);
      std::filesystem::create_directories(run.dir, ec);
      write_summary(run.dir, summary);
    } else if (status[i].exit_code != 0) {
      std::cerr << error_prefix() << "run " << labels[i] << " failed (it " << status[i].end.text() << ")\n";
    }
  }

  std::size_t not_ok = 0;
  try {
    not_ok = write_sweep_csv(out + "/sweep.csv", out, plan);
  } catch (const std::exception& e) {
    std::cerr << error_prefix() << e.what() << "\n";
    return 1;
  }
  std::cout << "wrote " << out << "/sweep.csv (" << count_text(plan.runs.size(), "run");
  if (not_ok) std::cout << ", " << not_ok << " not ok";
  std::cout << ")\nfigures: /usr/bin/python3 analysis/plot_sweep.py " << out << "\n";
  if (const auto why = stop.reason()) {
    const auto finished = std::count_if(status.begin(), status.end(), [](const VariantStatus& s) { return s.done; });
    std::cerr << "pstwin sweep: " << *why << ": " << finished << " of " << count_text(status.size(), "run")
              << " to run finished; the same command runs the rest\n";
    return 128 + signals.signal();
  }
  bool failed = false;
  for (const auto& st : status) failed = failed || st.exit_code != 0;
  return failed ? 1 : 0;
}

}  // namespace pstwin::cli
