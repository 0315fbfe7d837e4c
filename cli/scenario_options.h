// Command-line options shared by the subcommands that read a scenario.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "cli/override_note.h"
#include "runtime/errors.h"
#include "runtime/job_setup.h"
#include "runtime/scenario/scenario.h"

namespace pstwin::cli {

/// Adds the positional SCENARIO.json and the repeatable --set option to `desc`/`pos`.
void add_scenario_options(boost::program_options::options_description& desc,
                          boost::program_options::positional_options_description& pos);

/// Parses `args` against `desc`; on a bad flag or --help prints to stderr/stdout and returns
/// nullopt with `exit_code` set (2 for errors, 0 for --help).
/// With `env_prefix` set (e.g. "PSTWIN_"), options missing from the command line are also read
/// from environment variables named PREFIX + the option in upper case with '-' as '_'
/// (--connect-timeout: PSTWIN_CONNECT_TIMEOUT), switches too (PSTWIN_QUIET=1; values as
/// cli/environment_switches.h takes them). The command line wins. A variable set but empty is
/// refused naming it ("PSTWIN_RESUME is set but empty: give it a value, or unset it"), but for a
/// switch's (off) and a list's (PSTWIN_SET: none given). `from_environment`, when given, gets the
/// options whose value came from a variable, for errors to name it. A missing scenario is said
/// both ways it can be given (SCENARIO.json, --scenario; and the variable with `env_prefix`).
std::optional<boost::program_options::variables_map> parse_args(
    const std::vector<std::string>& args, const boost::program_options::options_description& desc,
    const boost::program_options::positional_options_description& pos, const std::string& usage,
    int& exit_code, const std::string& env_prefix = "", std::set<std::string>* from_environment = nullptr);

/// The line that reports `e`, an error in the scenario named by the parsed options: "pstwin:
/// invalid scenario FILE: /pointer: message", with " (the value of --set P=V)" when the pointer
/// is at or under a --set pointer (override_note); `set_flag` names where the overrides came from
/// instead of --set ("PSTWIN_SET", for a node that read them from its environment: flag_source),
/// and `scenario_flag` where the file's name did (" (from PSTWIN_SCENARIO)" after it when a
/// variable: from_variable).
/// With `error_without`, an error no --set pointer covers names the --set values that made it
/// (override_note).
std::string scenario_error_line(const boost::program_options::variables_map& vm, const ScenarioError& e,
                                const std::string& set_flag = "--set", const std::string& scenario_flag = "",
                                const ErrorWithout& error_without = nullptr);

/// Loads the scenario named by the parsed options and checks each run of a synthetic model
/// against its size, and each run's target (check_runs_fit_their_models), printing a
/// ScenarioError to stderr (scenario_error_line, naming `set_flag` and `scenario_flag`) and returning nullopt on bad
/// input.
std::optional<Scenario> load_scenario_from(const boost::program_options::variables_map& vm,
                                           const std::string& set_flag = "--set",
                                           const std::string& scenario_flag = "");

/// The seconds of flag `name` ("connect-timeout") in `vm`. REQUIRES the flag has a value (a
/// default). Prints "pstwin COMMAND: --NAME must be a positive, finite number of seconds, got X"
/// (`shown` instead of --NAME when given: the variable it came from) and returns nullopt (exit
/// status 2) for zero, a negative, nan or inf.
std::optional<double> seconds_flag(const boost::program_options::variables_map& vm, const std::string& name,
                                   const std::string& command, const std::string& shown = "");

/// The line that reports `e` on stderr: "pstwin: bad data at /data/train: FILE:LINE: message",
/// naming the scenario's pointer when the file is one the scenario names (so a user knows which
/// setting to fix), else "pstwin: bad data: FILE...".
std::string data_error_line(const Scenario& scenario, const DataError& e);

/// Loads the scenario's data and model, printing a DataError (data_error_line) or ScenarioError
/// to stderr and returning nullopt on bad input. `variant`, when not empty, is named in the
/// message ("(variant asp)"), for a scenario whose variants prepare their data apart.
std::optional<PreparedTraining> prepare_training_or_report(const Scenario& scenario,
                                                           const std::string& variant = "");

/// The runs of a scenario: each variant's own scenario (scenario_for_variant) and, when asked
/// for, its prepared data, read once for the variants that share data, model, seed and workers.
struct VariantRuns {
  std::vector<Scenario> scenarios;          ///< by variant, as scenario.consistency
  std::vector<PreparedTraining> prepared;   ///< distinct preparations; empty unless loaded
  std::vector<std::size_t> prepared_index;  ///< by variant: its entry of `prepared`
  /// The prepared data of variant `i`; REQUIRES it was loaded.
  const PreparedTraining& prepared_for(std::size_t i) const { return prepared.at(prepared_index.at(i)); }
};

/// Resolves every variant of `scenario` (the one `vm` names) and, with `load_data`, prepares
/// their data, then checks every run against its model (check_runs_fit_their_models: variants
/// that share data may differ in servers, partition or target). Prints what is wrong and returns
/// nullopt on bad input: a scenario error as load_scenario_from does, moved into the variant that
/// caused it (throw_in_variant); a data error by data_error_line, naming the variant when it
/// prepares apart from an earlier one.
std::optional<VariantRuns> resolve_variants_or_report(const boost::program_options::variables_map& vm,
                                                      const Scenario& scenario, bool load_data);

}  // namespace pstwin::cli
