// The advice for an override (--set, or a variant's "set") of a key whose section the scenario
// does not have: the section is added whole, with the key inside.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "runtime/scenario/cluster_include.h"

namespace pstwin {

/// When setting `pointer` to `value` in `doc` failed because an object on the way does not
/// exist (an override creates at most its last key, which catches typos), the message that says
/// which one is missing and how to add it with the value inside: "cannot set: the parent
/// /simulation does not exist: the scenario has no /simulation section; add it with the key
/// inside: --set '/simulation={"nic_send_window":1}'"
/// (in `form` kVariant, as a "set" entry). "" when the parent exists, or when what is missing
/// lies inside a list (an index the list lacks: no object to add). Never throws.
std::string missing_parent_hint(const nlohmann::json& doc, const std::string& pointer, const nlohmann::json& value,
                                OverrideForm form);

}  // namespace pstwin
