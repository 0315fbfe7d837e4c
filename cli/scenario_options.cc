#include "cli/scenario_options.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include "cli/command_name.h"
#include "cli/environment_switches.h"
#include "cli/flag_source.h"
#include "cli/flag_values.h"
#include "cli/override_note.h"
#include "runtime/errors.h"
#include "runtime/model_size_checks.h"

namespace po = boost::program_options;

namespace pstwin::cli {

void add_scenario_options(po::options_description& desc, po::positional_options_description& pos) {
  desc.add_options()
      ("scenario", po::value<std::string>()->required(), "scenario JSON file")
      ("set", po::value<std::vector<std::string>>()->composing(),
       "override a scenario value: --set /json/pointer=value (repeatable)")
      ("help,h", "show this help");
  pos.add("scenario", 1);
}

std::optional<po::variables_map> parse_args(const std::vector<std::string>& args,
                                            const po::options_description& desc,
                                            const po::positional_options_description& pos,
                                            const std::string& usage, int& exit_code,
                                            const std::string& env_prefix,
                                            std::set<std::string>* from_environment) {
  po::variables_map vm;
  try {
    po::parsed_options given = po::command_line_parser(args).options(desc).positional(pos).run();
    check_integer_values(given, desc);
    po::store(given, vm);
    if (!env_prefix.empty()) {
      std::vector<std::string> empty;  // variables set to ""
      po::parsed_options environment =
          po::parse_environment(desc, [&](const std::string& var) -> std::string {
            if (var.rfind(env_prefix, 0) != 0) return "";
            std::string name = var.substr(env_prefix.size());
            for (char& c : name) c = c == '_' ? '-' : static_cast<char>(std::tolower(c));
            // Switches take no value: store_environment_switches reads their variables.
            const auto* option = desc.find_nothrow(name, false);
            if (!option || option->semantic()->max_tokens() == 0) return "";
            // Set but empty (README, "Environment variables"): a list's (PSTWIN_SET) gives none;
            // any other is refused, as a value read as "" would be misread (a folder "", a
            // checkpoint "no such folder").
            if (const char* value = std::getenv(var.c_str()); value != nullptr && *value == '\0') {
              if (!option->semantic()->is_composing()) empty.push_back(var);
              return "";
            }
            return name;
          });
      if (!empty.empty())
        throw po::error(empty.front() + " is set but empty: give it a value, or unset it");
      check_integer_values(environment, desc, env_prefix);
      store_environment(environment, vm, env_prefix, from_environment);
      store_environment_switches(desc, vm, env_prefix, from_environment);
    }
    if (vm.count("help")) {
      std::cout << usage << "\n" << desc;
      exit_code = 0;
      return std::nullopt;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    std::string what = e.what();
    // Boost names the positional scenario by its option, which the user may never have seen.
    if (const auto* missing = dynamic_cast<const po::required_option*>(&e);
        missing != nullptr && missing->get_option_name() == "--scenario")
      what = "no scenario given: give SCENARIO.json after the command, or --scenario SCENARIO.json" +
             (env_prefix.empty() ? std::string() : ", or set " + variable_of(env_prefix, "scenario"));
    // The error and the synopsis (the "usage:" line and its indented continuations), not every
    // option: the mistake should be the first thing the user reads.
    std::string synopsis;
    for (std::size_t at = 0; at < usage.size();) {
      const std::size_t end = std::min(usage.find('\n', at), usage.size());
      const std::string line = usage.substr(at, end - at);
      if (!(at == 0 || (!line.empty() && line[0] == ' '))) break;
      synopsis += (at ? "\n" : "") + line;
      at = end + 1;
    }
    std::cerr << error_prefix() << what << "\n" << synopsis << "\n";
    const auto words = synopsis.find("pstwin ");
    if (words != std::string::npos) {
      const std::string command = synopsis.substr(words, synopsis.find(' ', words + 7) - words);
      std::cerr << "Run '" << command << " --help' for every option.\n";
    }
    exit_code = 2;
    return std::nullopt;
  }
  return vm;
}

std::string scenario_error_line(const po::variables_map& vm, const ScenarioError& e, const std::string& set_flag,
                                const std::string& scenario_flag, const ErrorWithout& error_without) {
  std::vector<std::string> sets;
  if (vm.count("set")) sets = vm["set"].as<std::vector<std::string>>();
  std::string what = e.what();
  // The scenario's advice is written for the command line ("give --set '/simulation={...}'"):
  // overrides from a variable are given as that variable instead.
  if (set_flag != "--set")
    for (std::size_t at = 0; (at = what.find("--set '", at)) != std::string::npos; at += set_flag.size() + 2)
      what.replace(at, 7, set_flag + "='");
  return error_prefix() + "invalid scenario " + vm["scenario"].as<std::string>() + from_variable(scenario_flag) + ": " + what +
         override_note(overrides_of(sets, set_flag), e.pointer(), e.what(), error_without);
}

std::optional<Scenario> load_scenario_from(const po::variables_map& vm, const std::string& set_flag,
                                           const std::string& scenario_flag) {
  std::vector<std::string> sets;
  if (vm.count("set")) sets = vm["set"].as<std::vector<std::string>>();
  const auto load = [&](const std::vector<std::string>& given) {
    Scenario scenario = load_scenario(vm["scenario"].as<std::string>(), given);
    // A synthetic model's size is the scenario's own: every command checks it against the wire
    // and the servers before anything starts, and every run's target. A real model's size comes
    // from its data (check_runs_or_report, cli/run_checks.h).
    check_runs_fit_their_models(scenario, synthetic_model_keys);
    return scenario;
  };
  try {
    return load(sets);
  } catch (const ScenarioError& e) {
    // Read again without each --set in turn: those without which the error differs made it.
    const ErrorWithout error_without = [&](std::size_t left_out) -> std::string {
      std::vector<std::string> fewer = sets;
      fewer.erase(fewer.begin() + static_cast<long>(left_out));
      try {
        (void)load(fewer);
      } catch (const std::exception& again) {
        return again.what();
      }
      return "";
    };
    std::cerr << scenario_error_line(vm, e, set_flag, scenario_flag, error_without) << "\n";
    return std::nullopt;
  }
}

std::optional<double> seconds_flag(const po::variables_map& vm, const std::string& name,
                                   const std::string& command, const std::string& shown) {
  const double s = vm[name].as<double>();
  if (std::isfinite(s) && s > 0 && s <= 1e9) return s;
  std::cerr << "pstwin " << command << ": " << (shown.empty() ? "--" + name : shown)
            << " must be a positive, finite number of seconds (at most 1e9), got " << s << "\n";
  return std::nullopt;
}

std::string data_error_line(const Scenario& scenario, const DataError& e) {
  std::string at;
  if (scenario.data) {
    const DataSection& d = *scenario.data;
    const std::pair<const char*, const std::string*> fields[] = {
        {"/data/file", &d.file},   {"/data/train", &d.train}, {"/data/train_labels", &d.train_labels},
        {"/data/test", &d.test}, {"/data/test_labels", &d.test_labels}};
    for (const auto& [pointer, file] : fields)
      if (!file->empty() && *file == e.file()) at = std::string(" at ") + pointer;
  }
  return error_prefix() + "bad data" + at + ": " + e.what();
}

std::optional<PreparedTraining> prepare_training_or_report(const Scenario& scenario, const std::string& variant) {
  const std::string in_variant = variant.empty() ? "" : " (variant " + variant + ")";
  try {
    return prepare_training(scenario);
  } catch (const DataError& e) {
    std::cerr << data_error_line(scenario, e) << in_variant << "\n";
  } catch (const ScenarioError& e) {
    std::cerr << error_prefix() << "invalid scenario: " << e.what() << in_variant << "\n";
  }
  return std::nullopt;
}

std::optional<VariantRuns> resolve_variants_or_report(const po::variables_map& vm, const Scenario& scenario,
                                                      bool load_data) {
  VariantRuns runs;
  for (std::size_t i = 0; i < scenario.consistency.size(); ++i) {
    runs.scenarios.push_back(scenario_for_variant(scenario, i));
    if (!load_data) continue;
    const Scenario& run = runs.scenarios.back();
    // The first variant that uses preparation j.
    auto owner = [&](std::size_t j) {
      return static_cast<std::size_t>(std::find(runs.prepared_index.begin(), runs.prepared_index.end(), j) -
                                      runs.prepared_index.begin());
    };
    std::size_t j = 0;
    while (j < runs.prepared.size() && !same_preparation(run, runs.scenarios[owner(j)])) ++j;
    if (j == runs.prepared.size()) {
      // A variant that prepares apart from an earlier one (its "set" changed the data, model or
      // workers) is named: the mistake is in its overrides, not in the base scenario.
      const std::string in_variant = runs.prepared.empty() ? "" : " (variant " + run.consistency.front().name + ")";
      std::optional<PreparedTraining> prepared;
      try {
        try {
          prepared = prepare_training(run);
        } catch (const ScenarioError& e) {
          throw_in_variant(e, scenario, i);  // as check_runs_fit_their_models puts it
        }
      } catch (const DataError& e) {
        std::cerr << data_error_line(run, e) << in_variant << "\n";
      } catch (const ScenarioError& e) {
        std::cerr << scenario_error_line(vm, e) << "\n";
      }
      if (!prepared) return std::nullopt;
      runs.prepared.push_back(std::move(*prepared));
    }
    runs.prepared_index.push_back(j);
  }
  if (!load_data) return runs;
  // Variants that share a preparation may still differ in what the model must fit: servers, a
  // partition, an optimizer's state in a message, a target. Each is checked against its model.
  try {
    check_runs_fit_their_models(scenario, [&](const Scenario& run) -> std::optional<ModelKeys> {
      if (const auto keys = synthetic_model_keys(run)) return keys;
      for (std::size_t i = 0; i < runs.scenarios.size(); ++i)
        if (same_model(run, runs.scenarios[i])) return model_keys(*runs.prepared_for(i).model);
      return std::nullopt;  // the base, when no variant reads its data and model
    });
  } catch (const ScenarioError& e) {
    std::cerr << scenario_error_line(vm, e) << "\n";
    return std::nullopt;
  }
  return runs;
}

}  // namespace pstwin::cli
