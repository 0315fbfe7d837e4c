#include "cli/run_checks.h"

#include <algorithm>
#include <cstdint>
#include <iostream>

#include "cli/command_name.h"
#include "cli/scenario_options.h"
#include "runtime/count_text.h"
#include "runtime/errors.h"
#include "runtime/job_setup.h"
#include "runtime/model_size_checks.h"
#include "runtime/wire_limit_check.h"

namespace pstwin::cli {

namespace {

/// What check_data_cheaply reads of `run`, as one text to compare runs by.
std::string data_check_inputs(const Scenario& run) {
  return nlohmann::json({source_section(run, "data"), source_section(run, "model"), source_section(run, "training"),
                         run.cluster.workers})
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

/// The data files of `run`, which fix its model's shape.
std::string data_files(const Scenario& run) {
  if (!run.data) return "";
  const DataSection& d = *run.data;
  return d.format + "\n" + d.file + "\n" + d.train + "\n" + d.train_labels + "\n" + d.test + "\n" + d.test_labels;
}

/// What read_model_shape found, for validate's "checked" lines: "FILE and FILE: read whole for
/// the model's size: 123 features, 2 classes".
std::string read_whole_line(const Scenario& run, const ModelShape& shape) {
  const DataSection& d = *run.data;
  const std::string files = d.format == "ratings" ? d.file : d.train + (d.test.empty() ? "" : " and " + d.test);
  return files + ": read whole for the model's size: " +
         (d.format == "ratings" ? count_text(shape.users, "user") + ", " + count_text(shape.items, "item")
                                : count_text(shape.features, "feature") + ", " + count_text(shape.classes, "class", "classes"));
}

void add_once(std::vector<std::string>& lines, const std::string& line) {
  if (std::find(lines.begin(), lines.end(), line) == lines.end()) lines.push_back(line);
}

/// "model mlp of 101770 keys x 1 float32: each of 2 servers gets keys, and its largest message,
/// a push or pull reply of one key range (...), is 203672 bytes, within the wire's limit of
/// 1073741824".
std::string model_line(const Scenario& run, const ModelKeys& keys) {
  const LargestMessage largest = largest_message(run, keys.keys, keys.values_per_key, keys.sparse);
  return "model " + run.model.type + " of " + count_text(keys.keys, "key") + " x " +
         std::to_string(keys.values_per_key) + " float32: " +
         each_of_text(run.cluster.servers, "server") + " gets keys" +
         ", and its largest message, " + largest.what + ", is " + count_text(largest.bytes, "byte") +
         ", within the wire's limit of " + std::to_string(kDefaultMaxMessageBytes);
}

}  // namespace

RunChecks check_runs(const Scenario& scenario, bool read_whole, RunCheckCache& cache) {
  RunChecks out;
  // The runs whose data check differs: the base, then each variant that changed what it reads.
  std::vector<std::pair<Scenario, std::size_t>> runs = {{scenario, SIZE_MAX}};
  for (std::size_t i = 0; i < scenario.consistency.size(); ++i) {
    Scenario run = scenario_for_variant(scenario, i);
    if (data_check_inputs(run) != data_check_inputs(scenario)) runs.emplace_back(std::move(run), i);
  }
  for (const auto& [run, i] : runs) {
    const std::string in_variant = i == SIZE_MAX ? "" : " (variant " + run.consistency.front().name + ")";
    try {
      const std::string inputs = data_check_inputs(run);
      auto known = cache.data.find(inputs);
      if (known == cache.data.end()) known = cache.data.emplace(inputs, check_data_cheaply(run)).first;
      for (const auto& line : known->second.checked) add_once(out.checked, line);
      const bool synthetic = run.model.type == "synthetic";
      const std::string files = synthetic ? "" : data_files(run);
      if (!synthetic) {
        std::optional<ModelShape>& shape = cache.shapes[files];  // one per data set
        if (!shape) shape = known->second.shape;
        if (!shape && read_whole) {
          shape = read_model_shape(run);
          cache.whole_reads.emplace(files, read_whole_line(run, *shape));
        }
      }
      // Read whole, the data left nothing unchecked that the cheap look had to leave (the rest of
      // a file, the model's size): said as checked instead.
      if (const auto whole = cache.whole_reads.find(files); !synthetic && whole != cache.whole_reads.end())
        add_once(out.checked, whole->second);
      else
        for (const auto& line : known->second.not_checked) add_once(out.not_checked, line);
    } catch (const DataError& e) {
      throw RunDataError(data_error_line(run, e).substr(error_prefix().size()) + in_variant);
    } catch (const ScenarioError& e) {
      if (i == SIZE_MAX) throw;
      throw_in_variant(e, scenario, i);
    }
  }
  const auto keys_of = [&](const Scenario& run) -> std::optional<ModelKeys> {
    if (const auto keys = synthetic_model_keys(run)) return keys;
    const auto shape = cache.shapes.find(data_files(run));
    if (shape == cache.shapes.end() || !shape->second) return std::nullopt;
    return model_keys(*model_for_shape(run, *shape->second));
  };
  check_runs_fit_their_models(scenario, keys_of);
  for (std::size_t i = 0; i < scenario.consistency.size(); ++i)
    if (const auto keys = keys_of(scenario_for_variant(scenario, i))) out.memory.push_back(run_memory(scenario, i, *keys));
  if (scenario.model.type != "synthetic")
    if (const auto keys = keys_of(scenario)) add_once(out.checked, model_line(scenario, *keys));
  return out;
}

std::optional<RunChecks> check_runs_or_report(const boost::program_options::variables_map& vm,
                                              const Scenario& scenario, bool read_whole) {
  RunCheckCache cache;
  try {
    return check_runs(scenario, read_whole, cache);
  } catch (const RunDataError& e) {
    std::cerr << error_prefix() << e.what() << "\n";
  } catch (const ScenarioError& e) {
    // A clash a --set made here (more workers than the data has batches for) is told by reading
    // the scenario again without each --set in turn, its data from the cache.
    std::vector<std::string> sets;
    if (vm.count("set")) sets = vm["set"].as<std::vector<std::string>>();
    const ErrorWithout error_without = [&](std::size_t left_out) -> std::string {
      std::vector<std::string> fewer = sets;
      fewer.erase(fewer.begin() + static_cast<long>(left_out));
      try {
        (void)check_runs(load_scenario(vm["scenario"].as<std::string>(), fewer), read_whole, cache);
      } catch (const std::exception& again) {
        return again.what();
      }
      return "";
    };
    std::cerr << scenario_error_line(vm, e, "--set", "", error_without) << "\n";
  }
  return std::nullopt;
}

}  // namespace pstwin::cli
