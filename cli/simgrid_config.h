// SimGrid settings from the environment, for runs where the defaults cannot work.
#pragma once

namespace pstwin::cli {

/// Applies each "item:value" of the environment variable PSTWIN_SIMGRID_CFG (separated by spaces),
/// as SimGrid's --cfg=item:value would, to the engines this process and its children create.
/// The sanitizer builds set "contexts/factory:thread": SimGrid's default raw contexts switch
/// stacks in ways AddressSanitizer and ThreadSanitizer cannot follow (tests/sanitizers/run.sh).
/// Does nothing when the variable is unset or empty. Returns false, having printed
/// "pstwin: PSTWIN_SIMGRID_CFG: <SimGrid's reason>", when SimGrid refuses an item.
bool apply_simgrid_config_from_env();

}  // namespace pstwin::cli
