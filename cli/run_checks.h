// The checks of a scenario's runs against their data and their model's size that every command
// makes before anything starts, so that what `validate` passes, `simulate`, `launch` and `sweep`
// run.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "cli/memory_fit.h"
#include "runtime/data_check.h"
#include "runtime/scenario/scenario.h"

namespace pstwin::cli {

/// What check_runs looked at (validate prints it): one sentence each, no repeats.
struct RunChecks {
  std::vector<std::string> checked;
  std::vector<std::string> not_checked;
  /// Each variant's memory (cli/memory_fit.h), by variant, for those whose model's size is known.
  std::vector<RunMemory> memory;
};

/// A data file of a run is bad. what() is data_error_line's text without its "pstwin: ", and
/// " (variant NAME)" when the variant's data differs from the base's.
class RunDataError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What check_runs read, kept from call to call: a sweep's grid points mostly share their data.
struct RunCheckCache {
  std::map<std::string, DataCheck> data;                     ///< by what check_data_cheaply reads
  std::map<std::string, std::optional<ModelShape>> shapes;  ///< by data files
  std::map<std::string, std::string> whole_reads;             ///< data files read whole: what was found
};

/// For the base scenario and each run of `scenario` whose data, model, training or workers
/// differ from the base's: its data as far as that is cheap (check_data_cheaply). Then every run
/// against its model's size (check_runs_fit_their_models): the size from the scenario for the
/// synthetic model, from what check_data_cheaply read for a real one, or, with `read_whole`
/// when that cannot tell (a LIBSVM or ratings file over 1 MiB), from the data read whole
/// (read_model_shape), once per data set, which `checked` then says in place of what the cheap
/// look left unchecked; without it such a run's size is left for the job and said in
/// `not_checked`. Each variant whose model's size is then known gets its memory
/// (run_memory). Throws ScenarioError, moved into the variant that caused it
/// (throw_in_variant), or RunDataError.
RunChecks check_runs(const Scenario& scenario, bool read_whole, RunCheckCache& cache);

/// check_runs for the scenario `vm` names, printing what is wrong (a scenario error as
/// load_scenario_from does, a data error as data_error_line) and returning nullopt.
std::optional<RunChecks> check_runs_or_report(const boost::program_options::variables_map& vm,
                                              const Scenario& scenario, bool read_whole);

}  // namespace pstwin::cli
