#include "runtime/roles/role_factory.h"

#include <stdexcept>
#include <string>

#include "runtime/roles/scheduler.h"
#include "runtime/roles/server.h"
#include "runtime/roles/worker.h"
#include "runtime/count_text.h"

namespace pstwin {

void run_role(Env& env, const JobSpec& spec, NodeId node, KernelBackend& kernels,
              bool rejoining) {
  if (node >= spec.layout.nodes())
    throw std::invalid_argument("node " + std::to_string(node) + " is not in the job (" +
                                count_text(spec.layout.servers, "server") + ", " +
                                count_text(spec.layout.workers, "worker") + ": nodes 0.." +
                                std::to_string(spec.layout.nodes() - 1) + ")");
  if (node == JobLayout::scheduler()) {
    Scheduler(env, spec, kernels).run();
  } else if (spec.layout.is_server(node)) {
    Server(env, spec, spec.layout.server_index(node), kernels, rejoining).run();
  } else {
    Worker(env, spec, spec.layout.worker_index(node), kernels, rejoining).run();
  }
}

}  // namespace pstwin
