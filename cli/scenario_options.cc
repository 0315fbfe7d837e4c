#include "cli/scenario_options.h"

#include <cctype>
#include <iostream>

#include "runtime/errors.h"

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
                                            const std::string& env_prefix) {
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(desc).positional(pos).run(), vm);
    if (!env_prefix.empty()) {
      po::store(po::parse_environment(desc,
                                      [&](const std::string& var) -> std::string {
                                        if (var.rfind(env_prefix, 0) != 0) return "";
                                        std::string name = var.substr(env_prefix.size());
                                        for (char& c : name) c = c == '_' ? '-' : static_cast<char>(std::tolower(c));
                                        // Switches take no value; their variables are read by the command.
                                        const auto* option = desc.find_nothrow(name, false);
                                        if (!option || option->semantic()->max_tokens() == 0) return "";
                                        return name;
                                      }),
                vm);
    }
    if (vm.count("help")) {
      std::cout << usage << "\n" << desc;
      exit_code = 0;
      return std::nullopt;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "pstwin: " << e.what() << "\n" << usage << "\n" << desc;
    exit_code = 2;
    return std::nullopt;
  }
  return vm;
}

std::optional<Scenario> load_scenario_from(const po::variables_map& vm) {
  const auto path = vm["scenario"].as<std::string>();
  std::vector<std::string> sets;
  if (vm.count("set")) sets = vm["set"].as<std::vector<std::string>>();
  try {
    return load_scenario(path, sets);
  } catch (const ScenarioError& e) {
    std::cerr << "pstwin: invalid scenario " << path << ": " << e.what() << "\n";
    return std::nullopt;
  }
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
  return "pstwin: bad data" + at + ": " + e.what();
}

std::optional<PreparedTraining> prepare_training_or_report(const Scenario& scenario) {
  try {
    return prepare_training(scenario);
  } catch (const DataError& e) {
    std::cerr << data_error_line(scenario, e) << "\n";
  } catch (const ScenarioError& e) {
    std::cerr << "pstwin: invalid scenario: " << e.what() << "\n";
  }
  return std::nullopt;
}

}  // namespace pstwin::cli
