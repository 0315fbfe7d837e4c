// The advice for an override (--set, or a variant's "set") of a key whose section the scenario
// does not have: the section is added whole, with the key inside, when the scenario would take
// it; else what is wrong with adding it (a section or key a scenario does not know).
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/scenario/cluster_include.h"

namespace pstwin {

/// Validates a whole document as the override's caller reads it (parse_scenario for --set, the
/// variant's resolved scenario for its "set"), throwing ScenarioError when it is invalid.
using ParseCheck = std::function<void(const nlohmann::json& doc)>;

/// When setting `pointer` to `value` in `doc` failed because an object on the way does not
/// exist (an override creates at most its last key, which catches typos), the message that says
/// which one is missing and how to add it with the value inside: "cannot set: the parent
/// /simulation does not exist: the scenario has no /simulation section; add it with the key
/// inside: --set '/simulation={"nic_send_window":1}'" (in `form` kVariant, as a "set" entry).
/// An index on the way below the missing key ("/simulation/cfg/0") makes a list there
/// ({"cfg": ["..."]}); only index 0 or "-" can start one. A float that holds an integer is
/// written as one (1e1 as 10, not 10.0: the field may count something). The advice is tried
/// with `parse` first, and is not given when it would be refused where the document was not:
/// - the missing key is one its object cannot have: "cannot set: the parent /simulaton does not
///   exist: a scenario has no section "simulaton" (did you mean "simulation"?); its sections
///   are name, seed, ..." (below the top level: "/cluster/worker has no key "nic"; its keys
///   are ...");
/// - else: "...; adding it with the key inside (--set '...') is refused too: <parse's error>".
/// "" when the parent exists, when what is missing lies inside a list (an index the list lacks:
/// no object to add), or when a list would have to start at an index past 0. Never throws.
std::string missing_parent_hint(const nlohmann::json& doc, const std::string& pointer, const nlohmann::json& value,
                                OverrideForm form, const ParseCheck& parse);

}  // namespace pstwin
