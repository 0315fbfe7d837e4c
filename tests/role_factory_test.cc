// run_role (runtime/roles/role_factory.h): a node outside the job's layout is refused by name
// before its role sends anything. Which role each node runs is covered by every simulated and
// real job (sim_*_test, net_*_test, cli_launch_*_test).
#include "runtime/roles/role_factory.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "tests/null_sink.h"

namespace pstwin {
namespace {

// An Env in which nothing arrives, counting what a role sends.
class SilentEnv : public Env {
 public:
  explicit SilentEnv(NodeId self) : self_(self) {}
  NodeId self() const override { return self_; }
  void send(NodeId, Message) override { ++sent; }
  std::optional<Message> recv(double) override { return std::nullopt; }
  double now() const override { return 0.0; }
  void sleep(double) override {}
  void account(const Cost&) override {}
  Rng& rng() override { return rng_; }
  MetricsSink& metrics() override { return sink_; }

  int sent = 0;

 private:
  NodeId self_;
  Rng rng_{1};
  testing_support::NullSink sink_;
};

TEST(RoleFactory, RefusesANodeOutsideTheLayoutByName) {
  JobSpec spec;
  spec.layout.servers = 1;
  spec.layout.workers = 2;  // nodes 0..3
  SilentEnv env(4);
  auto kernels = make_cpu_backend();
  try {
    run_role(env, spec, 4, *kernels);
    FAIL() << "node 4 of a 4-node job was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "node 4 is not in the job (1 server, 2 workers: nodes 0..3)");
  }
  EXPECT_EQ(env.sent, 0);
}

}  // namespace
}  // namespace pstwin
