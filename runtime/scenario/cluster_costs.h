// The host costs of a cluster ("messaging", "cpu") as text a user reads.
#pragma once

#include <string>
#include <vector>

#include "runtime/scenario/scenario.h"

namespace pstwin {

/// Lines describing `c`'s host costs for `validate`: one per run of consecutive workers (then
/// servers) with the same non-zero "messaging" ("messaging: workers: send 2.5e-05 s + 4e-10
/// s/byte, receive ..."), and one for "cpu". Empty when the cluster has neither (the model
/// without host costs).
std::vector<std::string> host_cost_lines(const ClusterSection& c);

}  // namespace pstwin
