// The PSTWIN_ environment variables, listed once: what reads each, and the warning for one in
// the environment that nothing reads (a misspelling, e.g. PSTWIN_INSECUR, would otherwise be
// ignored without a word). README's "Environment variables" lists the same names (a test
// compares them).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pstwin::cli {

/// Who reads a variable.
enum class VariableReader {
  kNode,        ///< `pstwin node`: the option of the same name (parse_args with prefix PSTWIN_)
  kSimulation,  ///< the commands that run SimGrid: simulate, sweep, validate
  kTests,       ///< pstwin's own tests, not the binary; listed so that it does not warn
};

/// One variable pstwin knows.
struct EnvironmentVariable {
  std::string_view name;  ///< "PSTWIN_QUIET"
  VariableReader reader;
};

/// Every PSTWIN_ variable pstwin or its tests read, sorted by name. `pstwin node`'s are its options
/// in capitals with '-' as '_' (--key-file: PSTWIN_KEY_FILE), --help aside.
const std::vector<EnvironmentVariable>& environment_variables();

/// The known variable `name` is a typo of, or "" when none is close: the one whose name after
/// PSTWIN_ is nearest to `name`'s by edit_distance (runtime/edit_distance.h), letters compared
/// in any case ("PSTWIN_insecure" is PSTWIN_INSECURE), and only within typo_limit of that part's
/// length, as the --set advice chooses ("PSTWIN_JOBS" is no typo of PSTWIN_JOIN); the first in
/// name order on a tie. `name` starts with PSTWIN_ in any case.
std::string closest_variable(std::string_view name);

/// Warnings for the PSTWIN_ variables of `environment` ("NAME=VALUE" entries, as `environ`; the
/// prefix in any case) that no part of pstwin reads, one a line, in the order given:
/// "PSTWIN_INSECUR is not a variable pstwin reads, so it is ignored (did you mean
/// PSTWIN_INSECURE?)", without the question when no known name is close (closest_variable).
/// `unknown`, when given, gets their names.
std::vector<std::string> unknown_variable_warnings(const std::vector<std::string>& environment,
                                                   std::vector<std::string>* unknown = nullptr);

/// The PSTWIN_ variables of `environment` that only `pstwin node` reads, in the order given (launch
/// sets its nodes' options itself, and a node it starts must not pick one up).
std::vector<std::string> node_variables_in(const std::vector<std::string>& environment);

/// The warning for node variable `variable` in the environment of `command` (not node), which
/// ignores it: "PSTWIN_OUT is for pstwin node; simulate takes its options from the command line, so
/// it is ignored"; for launch, "...; launch sets its nodes' options itself, so it is ignored".
std::string node_variable_warning(const std::string& command, const std::string& variable);

/// This process's environment as "NAME=VALUE" entries.
std::vector<std::string> process_environment();

}  // namespace pstwin::cli
