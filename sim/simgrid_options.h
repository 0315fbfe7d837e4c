// SimGrid's own configuration options (--cfg=NAME:VALUE, as every SimGrid program takes them):
// checking that SimGrid accepts one, and the argument vector that hands them to the engine.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace pstwin {

/// SimGrid does not accept an option. what() names the option and says what is wrong, e.g.
/// `SimGrid option network/model:Foo: Model 'Foo' is invalid! Valid models are: LV08, ...`.
class SimGridOptionError : public std::invalid_argument {
 public:
  SimGridOptionError(std::string option, const std::string& why)
      : std::invalid_argument("SimGrid option " + option + ": " + why), option_(std::move(option)) {}
  /// The option as given, "NAME:VALUE".
  const std::string& option() const { return option_; }

 private:
  std::string option_;
};

/// Why SimGrid refuses `option` ("NAME:VALUE"), or "" when it takes it. Catches what SimGrid
/// would otherwise only say by ending the process (xbt_die on a misspelt name, an unknown model
/// or context factory, a value of the wrong type), because the check runs in a child process
/// that builds a two-host platform with the option set and runs one transfer and one
/// computation on it; the child's SimGrid message becomes the reason. Misspellings
/// (simgrid_option_syntax_error) are reported without starting a child.
/// The child sets simgrid_options_from_env() first, as a run's engine does, so that a build
/// that needs them (the sanitizer builds' thread contexts) checks under them too.
/// REQUIRES: no SimGrid engine was created in this process (the child would inherit it).
/// Costs a fork and a few milliseconds. Throws std::runtime_error only when it cannot fork.
std::string simgrid_option_refusal(const std::string& option);

/// The SimGrid options of the environment variable PSTWIN_SIMGRID_CFG ("NAME:VALUE" items
/// separated by spaces; none when unset). For builds where SimGrid's defaults cannot work: the
/// sanitizer builds set "contexts/factory:thread", because SimGrid's default raw contexts switch
/// stacks in ways AddressSanitizer and ThreadSanitizer cannot follow (tests/sanitizers/run.sh).
/// The commands put them first in a run's list (cli/simgrid_cfg_option.h).
std::vector<std::string> simgrid_options_from_env();

/// The argument vector that hands `options` to SimGrid's engine: "pstwin",
/// "--log=root.thresh:critical" (SimGrid reports only what ends a run, as pstwin's checks say
/// the rest) and "--cfg=OPTION" for each option, in order. Keeps the strings alive for as long
/// as the engine may read them.
class SimGridArgs {
 public:
  /// Checks each option with simgrid_option_refusal first. Throws SimGridOptionError naming the
  /// first option SimGrid refuses; REQUIRES as simgrid_option_refusal.
  explicit SimGridArgs(const std::vector<std::string>& options);
  SimGridArgs(const SimGridArgs&) = delete;
  SimGridArgs& operator=(const SimGridArgs&) = delete;

  /// For simgrid::s4u::Engine(int* argc, char** argv), which removes the arguments it used.
  int* argc() { return &argc_; }
  char** argv() { return pointers_.data(); }

 private:
  std::vector<std::string> strings_;
  std::vector<char*> pointers_;  // into strings_, then nullptr
  int argc_ = 0;
};

}  // namespace pstwin
