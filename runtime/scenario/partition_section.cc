#include "runtime/scenario/partition_section.h"

#include "runtime/errors.h"
#include "runtime/scenario/json_fields.h"

namespace pstwin::scenario_sections {

using namespace scenario_json;

namespace {
PartitionScheme read_scheme(const json& v, const std::string& ptr) {
  const std::string name = read_choice(v, ptr, {"range", "consistent_hash", "balanced"});
  return name == "range" ? PartitionScheme::kRange
         : name == "consistent_hash" ? PartitionScheme::kConsistentHash
                                     : PartitionScheme::kBalanced;
}
}  // namespace

PartitionSpec parse_partition(const json& v, const std::string& ptr) {
  PartitionSpec p;
  if (v.is_string()) {
    p.scheme = read_scheme(v, ptr);
    return p;
  }
  // Both forms are allowed: name both (an object alone would hide the usual string form).
  if (!v.is_object())
    throw ScenarioError(ptr, "expected a scheme name (\"range\", \"consistent_hash\" or \"balanced\") or an "
                             "object {\"scheme\": ..., \"virtual_nodes\": ..., \"block_keys\": ...}, got " +
                                 describe(v));
  const Object o(v, ptr, {"scheme", "virtual_nodes", "block_keys"});
  p.scheme = read_scheme(o.at("scheme"), o.ptr("scheme"));
  if (p.scheme != PartitionScheme::kConsistentHash)
    o.forbid("virtual_nodes", std::string("virtual nodes are for scheme \"consistent_hash\", not \"") +
                                  partition_scheme_name(p.scheme) + "\"");
  if (p.scheme == PartitionScheme::kRange)
    o.forbid("block_keys", "the range scheme gives each server one contiguous range; block_keys is "
                           "for \"consistent_hash\" and \"balanced\"");
  // Bounded so that ring building (servers x virtual_nodes SHA-256s) stays quick.
  if (o.has("virtual_nodes"))
    p.virtual_nodes = static_cast<std::uint32_t>(read_uint(o.at("virtual_nodes"), o.ptr("virtual_nodes"), 1, 100000));
  if (o.has("block_keys")) p.block_keys = read_uint(o.at("block_keys"), o.ptr("block_keys"), 1, 1ull << 32);
  return p;
}

}  // namespace pstwin::scenario_sections
