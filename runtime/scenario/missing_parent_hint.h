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
/// What is missing is an element of a list, with keys below it ("/consistency/-/mode": "-" is
/// RFC 6901's element after the last, or an index past the end): there is no element to set a
/// key in, and the message says so with the two overrides meant: "cannot set: the parent
/// /consistency/- does not exist: "-" in a JSON pointer is the element after the last of
/// /consistency (it appends one), so there is nothing in it to set yet; /consistency has 3
/// elements: to change a key of one, give its index (0 to 2): --set '/consistency/0/mode="bsp"';
/// to add one, give it whole: --set '/consistency/-={"mode":"bsp"}'", tried with `parse` and,
/// when that element is refused where the document was not, followed by " (as written it is
/// refused: /consistency/3: duplicate variant name "bsp" ...)".
/// A key where a list is ("/consistency/x/mode", /consistency a list): "cannot set: the parent
/// /consistency/x does not exist: /consistency is a list, whose elements are given by index, not
/// by a key ("x"): give an index from 0 to 2, as in --set '/consistency/0/mode="bsp"'" (the
/// element whose "name", or unnamed whose "mode", is the key, else the first).
/// "" when the parent exists, or when a list would have to start at an index past 0. Never
/// throws.
std::string missing_parent_hint(const nlohmann::json& doc, const std::string& pointer, const nlohmann::json& value,
                                OverrideForm form, const ParseCheck& parse);

}  // namespace pstwin
