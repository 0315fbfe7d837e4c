// What an override or an integer field says when it is refused: a key whose section the scenario
// lacks names the section and how to add it (a trial's --set /simulation/nic_send_window=1 said
// only that the parent does not exist), and an integer past its limit is "too large", not a
// number to write "without a fraction" (a trial's 2^64 + 1, written as an integer).
#include <gtest/gtest.h>

#include <fstream>

#include "runtime/errors.h"
#include "runtime/scenario/scenario.h"
#include "tests/scratch_dir.h"
#include "tests/scenario_test_support.h"

namespace pstwin {
namespace {

using testing_support::load_error;
using testing_support::ScratchDir;

constexpr const char* kScenario = R"({
  "name": "o", "seed": 1,
  "model": {"type": "synthetic", "parameters": 1000, "flops_per_iteration": 1e6},
  "training": {"iterations": 5}, "consistency": [{"mode": "bsp"}],
  "cluster": {"workers": 2, "servers": 1,
              "worker": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "50us"}},
              "server": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "50us"}}}})";

TEST(OverrideMessages, ASetIntoAMissingSectionSaysHowToAddIt) {
  ScratchDir dir("override");
  const std::string path = dir.write("s.json", kScenario);
  EXPECT_EQ(load_error(path, {"/simulation/nic_send_window=1"}),
            "/simulation/nic_send_window: cannot set: the parent /simulation does not exist: the scenario has no "
            "/simulation section; add it with the key "
            "inside: --set '/simulation={\"nic_send_window\":1}'");
  // The advice works, and a missing object deeper down is named the same way.
  EXPECT_EQ(load_error(path, {"/simulation={\"nic_send_window\":1}"}), "<valid>");
  EXPECT_EQ(load_error(path, {"/compression/gradients/ratio=0.1"}),
            "/compression/gradients/ratio: cannot set: the parent /compression/gradients does not exist: the scenario "
            "has no /compression section; add it with the key "
            "inside: --set '/compression={\"gradients\":{\"ratio\":0.1}}'");
  EXPECT_EQ(load_error(path, {"/cluster/worker/nic/queue=4"}),
            "/cluster/worker/nic/queue: cannot set: the parent /cluster/worker/nic does not exist: the scenario has no "
            "/cluster/worker/nic; add it with the key "
            "inside: --set '/cluster/worker/nic={\"queue\":4}'");
  // A list's missing element is no object to add: the plain refusal stays.
  EXPECT_EQ(load_error(path, {"/consistency/4/mode=asp"}),
            "/consistency/4/mode: cannot set: the parent /consistency/4 does not exist");
}

// A pointer is the user's bytes, not always UTF-8: the advice, which writes its keys as JSON,
// aborted validate (json's type_error) on one such key below a missing section.
TEST(OverrideMessages, AKeyThatIsNotUtf8IsWrittenReplacedInTheAdvice) {
  ScratchDir dir("override");
  const std::string path = dir.write("s.json", kScenario);
  EXPECT_EQ(load_error(path, {"/simulation/\xff/y=1"}),
            "/simulation/\xff/y: cannot set: the parent /simulation/\xff does not exist: the scenario has no "
            "/simulation section; add it with the key inside: --set '/simulation={\"\xef\xbf\xbd\":{\"y\":1}}'");
}

TEST(OverrideMessages, AVariantsSetIntoAMissingSectionSaysHowToAddIt) {
  ScratchDir dir("override");
  nlohmann::json s = nlohmann::json::parse(kScenario);
  s.erase("consistency");
  s["variants"] = {{{"name", "w2"}, {"consistency", {{"mode", "bsp"}}}, {"set", {{"/simulation/nic_send_window", 2}}}}};
  const std::string path = dir.write("s.json", s.dump());
  EXPECT_EQ(load_error(path, {}),
            "/variants/0/set/~1simulation~1nic_send_window: cannot set: the parent /simulation does not exist: the "
            "scenario has no /simulation section; add it with the key inside: \"/simulation\": {\"nic_send_window\":2}");
}

TEST(OverrideMessages, AnIntegerPastItsLimitIsTooLargeHoweverItIsWritten) {
  nlohmann::json d = nlohmann::json::parse(kScenario);
  d["simulation"] = {{"nic_send_window", nlohmann::json::parse("18446744073709551617")}};  // 2^64 + 1
  EXPECT_EQ(testing_support::error_message(d),
            "/simulation/nic_send_window: expected a positive integer <= 1024, got 1.8446744073709552e+19: too large");
  d["simulation"]["nic_send_window"] = 1e30;
  EXPECT_EQ(testing_support::error_message(d),
            "/simulation/nic_send_window: expected a positive integer <= 1024, got 1e+30: too large");
  d.erase("simulation");
  d["seed"] = nlohmann::json::parse("18446744073709551616");  // 2^64: one past the widest field's limit
  EXPECT_EQ(testing_support::error_message(d),
            "/seed: expected a non-negative integer <= 18446744073709551615, got 1.8446744073709552e+19: too large");
  d["seed"] = 1e17;  // within 2^64 but written with an exponent: the 2^53 message stays
  EXPECT_NE(testing_support::error_message(d).find("written without a fraction or exponent"), std::string::npos);
}

}  // namespace
}  // namespace pstwin
