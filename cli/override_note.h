// Where a bad scenario value came from when the user gave it on the command line (--set, a
// sweep's --grid) or in PSTWIN_SET, not in the file: the one note every command's scenario
// errors carry, so the user looks where the value is.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace pstwin::cli {

/// An override of a scenario value, as the user gave it.
struct ScenarioOverride {
  std::string flag;  ///< "--set", "--grid" or "PSTWIN_SET"
  std::string text;  ///< "/json/pointer=value"
};

/// `sets` ("/json/pointer=value" each), all given by `flag`.
std::vector<ScenarioOverride> overrides_of(const std::vector<std::string>& sets, const std::string& flag = "--set");

/// Which override to look at for a scenario error at `pointer` whose text is `message`:
/// - " (the value of --set /cluster/workers=0)", " (the value of PSTWIN_SET=/cluster/workers=0)"
///   (a variable is written as it is assigned), " (the value of --grid /cluster/workers=0)",
///   when `pointer` is at or under an override's pointer (the last such override, as the last
///   one applied wins). An error in an included file ("in the included file ...") is blamed on
///   the override of /cluster/include (or above it), else on nothing: the message names the file.
/// - when none is at the pointer, the error may be a clash an override made elsewhere (a batch
///   larger than the partitions of 1000 workers). With `error_without` (the scenario's error,
///   "" when valid, with every override but the one given), the overrides without which the
///   error is not the same are named: " (a clash made by --set /cluster/workers=1e3: without it
///   this error does not arise)"; none, "" (the file's own error). Without it, every override is
///   listed: " (with --set /cluster/workers=1e3 in effect)".
/// - followed by "; to replace the file's iterations, add --set /training/iterations=null" when
///   the error is "give iterations or epochs, not both" and an override set one of the two.
/// "" without overrides.
using ErrorWithout = std::function<std::string(std::size_t left_out)>;
std::string override_note(const std::vector<ScenarioOverride>& overrides, const std::string& pointer,
                          const std::string& message = "", const ErrorWithout& error_without = nullptr);

}  // namespace pstwin::cli
