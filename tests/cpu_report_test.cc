// The "cpu" member of a node's final report (runtime/roles/cpu_report.h): what a real node
// sends, and what the scheduler refuses when it comes off the wire wrong.
#include "runtime/roles/cpu_report.h"

#include <gtest/gtest.h>

#include "runtime/errors.h"

namespace pstwin {
namespace {

using nlohmann::json;

TEST(CpuReport, RoundTripsThroughItsJson) {
  const CpuUse use{0.25, 0.75, 2.5};
  const CpuUse back = cpu_use_from_json(cpu_use_json(use), "report");
  EXPECT_EQ(back.role_thread_s, 0.25);
  EXPECT_EQ(back.process_s, 0.75);
  EXPECT_EQ(back.wall_s, 2.5);
}

void expect_refused(const json& cpu, const std::string& names) {
  try {
    cpu_use_from_json(cpu, "scheduler: report from node 3");
    ADD_FAILURE() << "accepted " << cpu.dump();
  } catch (const ProtocolError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("report from node 3"), std::string::npos) << what;
    EXPECT_NE(what.find(names), std::string::npos) << what;
  }
}

TEST(CpuReport, RefusesAMemberMissingNegativeOrNotANumber) {
  expect_refused(json::array(), "cpu must be an object");
  expect_refused({{"process_s", 1.0}, {"wall_s", 1.0}}, "role_thread_s");
  expect_refused({{"role_thread_s", -0.5}, {"process_s", 1.0}, {"wall_s", 1.0}}, "cpu.role_thread_s must be >= 0");
  expect_refused({{"role_thread_s", 0.5}, {"process_s", "1"}, {"wall_s", 1.0}}, "process_s");
  expect_refused({{"role_thread_s", 0.5}, {"process_s", 1.0}, {"wall_s", -1.0}}, "cpu.wall_s must be >= 0");
}

}  // namespace
}  // namespace pstwin
