// `pstwin node`'s flags (each also a PSTWIN_ variable), and the node they describe, checked before
// the node registers, reads data or takes its output folder.
#pragma once

#include <boost/program_options.hpp>
#include <optional>
#include <set>
#include <string>

#include "net/real_job.h"
#include "runtime/scenario/scenario.h"

namespace pstwin::cli {

/// Adds `pstwin node`'s options to `desc`, the scenario's (SCENARIO.json, --set) among them.
void add_node_options(boost::program_options::options_description& desc,
                      boost::program_options::positional_options_description& pos);

/// A node as its flags describe it.
struct NodeFlags {
  Scenario scenario;         ///< resolved to the chosen variant: consistency holds that one variant
  net::NodeOptions options;  ///< role, addresses, keys, files, timeouts and device, each checked
};

/// Reads and checks the flags of `vm` (parsed from add_node_options; `from_environment` names
/// those that came from PSTWIN_ variables, so an error names what the user set): loads the
/// scenario, chooses the variant, and tries every address, key file, folder and file the flags
/// name. On bad input prints one line saying which flag and what is wrong ("pstwin node: ...",
/// `usage` after a missing --role or --scheduler) and returns nullopt (exit status 2).
std::optional<NodeFlags> node_flags(const boost::program_options::variables_map& vm,
                                    const std::set<std::string>& from_environment, const char* usage);

}  // namespace pstwin::cli
