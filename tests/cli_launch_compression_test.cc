// BSP with compression on gives the same parameters in every environment: simulate, launch
// --transport inproc and ZeroMQ (params_sha256), and the servers count the packed bytes alike.
#include <gtest/gtest.h>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

nlohmann::json compressed_toy(const std::string& dir, const char* compression) {
  auto s = toy_scenario(dir);
  s["consistency"] = nlohmann::json::parse(R"([{"mode": "bsp"}])");
  s["compression"] = nlohmann::json::parse(compression);
  return s;
}

TEST(LaunchCompression, Int8PushesAndPullsWithClippingHaveParity) {
  const std::string dir = fresh_dir();
  expect_parity(dir, compressed_toy(dir, R"({"push": {"format": "int8"}, "pull": {"format": "int8"},
                                            "clip": {"global_norm": 1.0}})"));
}

TEST(LaunchCompression, TopKWithErrorFeedbackAndFp16PullsHaveParity) {
  const std::string dir = fresh_dir();
  expect_parity(dir, compressed_toy(dir, R"({"push": {"format": "topk", "ratio": 0.1},
                                            "pull": {"format": "fp16"}})"));
}

TEST(LaunchCompression, PackedPushesAreWhatTheServersCount) {
  const std::string dir = fresh_dir();
  auto s = toy_scenario(dir);
  s.erase("consistency");
  s["training"]["iterations"] = 20;
  s["variants"] = nlohmann::json::parse(R"([{"name": "plain", "consistency": {"mode": "bsp"}},
      {"name": "onebit", "consistency": {"mode": "bsp"},
       "set": {"/compression": {"push": {"format": "onebit"}}}}])");
  const std::string out = simulate(dir, s);
  // The toy model has 21 parameters in 2 ranges (11 and 10): a plain push carries 4 bytes a
  // value (44 and 40), a onebit push one 4-byte scale and a byte of signs per 8 values (6 and 6),
  // in the same frame. 4 workers x 20 clocks push each range once; pulls are alike.
  const double plain = read_json(out + "/plain/summary.json")["bytes_to_servers"].get<double>();
  const double onebit = read_json(out + "/onebit/summary.json")["bytes_to_servers"].get<double>();
  EXPECT_EQ(plain - onebit, 4.0 * 20 * ((44 - 6) + (40 - 6)));
}

TEST(LaunchCompression, SetReachesTheSectionAndItsErrorsExitWithStatus2) {
  const std::string dir = fresh_dir();
  write_json(dir + "/toy.json", compressed_toy(dir, R"({"push": {"format": "int8"}})"));
  auto r = run_pstwin("validate " + dir + "/toy.json --set /compression/push/format=topk");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  r = run_pstwin("validate " + dir + "/toy.json --set '/compression/pull={\"format\": \"onebit\"}'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("/compression/pull/format"), std::string::npos) << r.output;
  r = run_pstwin("validate " + dir + "/toy.json --set /compression/push/ratio=0.5");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("/compression/push/ratio"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace pstwin
