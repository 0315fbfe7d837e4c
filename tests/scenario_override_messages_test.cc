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
  // A key the added section cannot have: the advice would be refused, and that is said instead.
  EXPECT_EQ(load_error(path, {"/compression/gradients/ratio=0.1"}),
            "/compression/gradients/ratio: cannot set: the parent /compression/gradients does not exist: the scenario "
            "has no /compression section; adding it with the key inside (--set "
            "'/compression={\"gradients\":{\"ratio\":0.1}}') is refused too: /compression/gradients: unknown key "
            "\"gradients\"; allowed keys: push, pull, clip");
  EXPECT_EQ(load_error(path, {"/fault_tolerance/replication=1"}),
            "/fault_tolerance/replication: cannot set: the parent /fault_tolerance does not exist: the scenario has no "
            "/fault_tolerance section; add it with the key inside: --set '/fault_tolerance={\"replication\":1}'");
}

// A trial's --set /consistency/-/mode=bsp was refused with no hint: "-" (RFC 6901's element after
// the last) names no element yet, so nothing in it can be set; nor can it in an index past the
// end. What there is, and the two overrides meant, both of which work.
TEST(OverrideMessages, APointerThroughAMissingListElementSaysWhatItNamesAndWhatToWrite) {
  ScratchDir dir("override");
  const std::string path = dir.write("s.json", kScenario);
  const std::pair<std::string, std::string> cases[] = {
      {"-", "\"-\" in a JSON pointer is the element after the last of /consistency (it appends one), so there is "
            "nothing in it to set yet"},
      {"4", "/consistency has no element 4"}};
  for (const auto& [index, what] : cases)
    EXPECT_EQ(load_error(path, {"/consistency/" + index + "/mode=asp"}),
              "/consistency/" + index + "/mode: cannot set: the parent /consistency/" + index +
                  " does not exist: " + what +
                  "; /consistency has 1 element: to change a key of one, give its index (0 to 0): --set "
                  "'/consistency/0/mode=\"asp\"'; to add one, give it whole: --set "
                  "'/consistency/-={\"mode\":\"asp\"}'");
  EXPECT_EQ(load_error(path, {"/consistency/0/mode=\"asp\""}), "<valid>");
  EXPECT_EQ(load_error(path, {"/consistency/-={\"mode\":\"asp\"}"}), "<valid>");
  // The element appended as written would repeat a variant (the trial's case): said.
  EXPECT_EQ(load_error(path, {"/consistency/-/mode=bsp"}),
            "/consistency/-/mode: cannot set: the parent /consistency/- does not exist: \"-\" in a JSON pointer is "
            "the element after the last of /consistency (it appends one), so there is nothing in it to set yet; "
            "/consistency has 1 element: to change a key of one, give its index (0 to 0): --set "
            "'/consistency/0/mode=\"bsp\"'; to add one, give it whole: --set '/consistency/-={\"mode\":\"bsp\"}' "
            "(as written it is refused: /consistency/1: duplicate variant name \"bsp\" (the default); give it a "
            "distinct \"name\")");
}

// The advice is tried before it is given. A trial's misspelt section got the advice to add it
// (refused in turn as an unknown key), and so did a key no object of that kind has.
TEST(OverrideMessages, ASectionOrKeyAScenarioCannotHaveIsNamedWithTheOnesItCan) {
  ScratchDir dir("override");
  const std::string path = dir.write("s.json", kScenario);
  const std::string sections =
      "name, seed, data, model, training, consistency, cluster, stragglers, fault_tolerance, failures, partition, "
      "output, simulation, compression";
  EXPECT_EQ(load_error(path, {"/simulaton/nic_window=4"}),
            "/simulaton/nic_window: cannot set: the parent /simulaton does not exist: a scenario has no section "
            "\"simulaton\" (did you mean \"simulation\"?); its sections are " + sections);
  EXPECT_EQ(load_error(path, {"/xyz/a=1"}),
            "/xyz/a: cannot set: the parent /xyz does not exist: a scenario has no section \"xyz\"; its sections are " +
                sections);
  EXPECT_EQ(load_error(path, {"/cluster/worker/nic/queue=4"}),
            "/cluster/worker/nic/queue: cannot set: the parent /cluster/worker/nic does not exist: /cluster/worker has "
            "no key \"nic\"; its keys are device, link, messaging");
  // The section exists in a scenario, the key in it does not: the advice would be refused there.
  EXPECT_EQ(load_error(path, {"/simulation/nic_windw=4"}),
            "/simulation/nic_windw: cannot set: the parent /simulation does not exist: the scenario has no /simulation "
            "section; adding it with the key inside (--set '/simulation={\"nic_windw\":4}') is refused too: "
            "/simulation/nic_windw: unknown key \"nic_windw\" (did you mean \"nic_window\"?); allowed keys: cfg, "
            "nic_window, nic_send_window, "
            "nic_send_part");
  // In a variant's "set", the same, as a "set" entry.
  nlohmann::json v = nlohmann::json::parse(kScenario);
  v.erase("consistency");
  v["variants"] = {{{"name", "w"}, {"set", {{"/simulaton/nic_window", 2}}}}};
  const std::string variants = dir.write("v.json", v.dump());
  EXPECT_EQ(load_error(variants, {}),
            "/variants/0/set/~1simulaton~1nic_window: cannot set: the parent /simulaton does not exist: a scenario has "
            "no section \"simulaton\" (did you mean \"simulation\"?); its sections are " + sections);
}

// An index below the missing key is a list's: a trial's /simulation/cfg/0 was advised as an
// object with a key "0". Only a list's first element can start one.
TEST(OverrideMessages, APointerThroughAListAddsAList) {
  ScratchDir dir("override");
  const std::string path = dir.write("s.json", kScenario);
  for (const char* index : {"0", "-"})
    EXPECT_EQ(load_error(path, {std::string("/simulation/cfg/") + index + "=network/model:CM02"}),
              std::string("/simulation/cfg/") + index +
                  ": cannot set: the parent /simulation/cfg does not exist: the scenario has no /simulation section; "
                  "add it with the key inside: --set '/simulation={\"cfg\":[\"network/model:CM02\"]}'");
  EXPECT_EQ(load_error(path, {"/simulation={\"cfg\":[\"network/model:CM02\"]}"}), "<valid>");
  EXPECT_EQ(load_error(path, {"/simulation/cfg/2=network/model:CM02"}),
            "/simulation/cfg/2: cannot set: the parent /simulation/cfg does not exist");
  // Variants for a scenario of a "consistency" list: adding them that way is refused, and said.
  EXPECT_EQ(load_error(path, {"/variants/0/set/~1training~1iterations=3"}),
            "/variants/0/set/~1training~1iterations: cannot set: the parent /variants/0/set does not exist: the "
            "scenario has no /variants section; adding it with the key inside (--set "
            "'/variants=[{\"set\":{\"/training/iterations\":3}}]') is refused too: /consistency: expected one "
            "consistency object ({\"mode\": ...}), got an array");
}

// A trial's --set /simulation/nic_window=1e1 was advised as {"nic_window":10.0}: a count
// written as a float. A float that holds an integer is written as the integer.
TEST(OverrideMessages, AnIntegerWrittenAsAFloatIsAdvisedAsAnInteger) {
  ScratchDir dir("override");
  const std::string path = dir.write("s.json", kScenario);
  for (const char* value : {"1e1", "10.0"})
    EXPECT_EQ(load_error(path, {std::string("/simulation/nic_window=") + value}),
              std::string("/simulation/nic_window: cannot set: the parent /simulation does not exist: the scenario "
                          "has no /simulation section; add it with the key inside: --set "
                          "'/simulation={\"nic_window\":10}'"));
  // A fraction stays one (here in advice the synthetic model refuses: it has nothing to compress).
  EXPECT_EQ(load_error(path, {"/compression/push/ratio=0.25"}),
            "/compression/push/ratio: cannot set: the parent /compression/push does not exist: the scenario has no "
            "/compression section; adding it with the key inside (--set '/compression={\"push\":{\"ratio\":0.25}}') "
            "is refused too: /compression: the synthetic model sends sizes, not values: there is nothing to compress");
}

// A pointer is the user's bytes, not always UTF-8: the advice, which writes its keys as JSON,
// aborted validate (json's type_error) on one such key below a missing section.
TEST(OverrideMessages, AKeyThatIsNotUtf8IsWrittenReplacedInTheAdvice) {
  ScratchDir dir("override");
  const std::string path = dir.write("s.json", kScenario);
  EXPECT_EQ(load_error(path, {"/simulation/\xff/y=1"}),
            "/simulation/\xff/y: cannot set: the parent /simulation/\xff does not exist: the scenario has no "
            "/simulation section; adding it with the key inside (--set '/simulation={\"\xef\xbf\xbd\":{\"y\":1}}') "
            "is refused too: /simulation/\xff: unknown key \"\xff\"; allowed keys: cfg, nic_window, nic_send_window, "
            "nic_send_part");
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
  // Echoed as an integer (it was "1.8446744073709552e+19"): the nearest a double holds, 2^64.
  EXPECT_EQ(testing_support::error_message(d),
            "/simulation/nic_send_window: expected a positive integer <= 1024, got 18446744073709551616: too large");
  d["simulation"]["nic_send_window"] = 1e30;
  EXPECT_EQ(testing_support::error_message(d),
            "/simulation/nic_send_window: expected a positive integer <= 1024, got 1e+30: too large");
  d.erase("simulation");
  d["seed"] = nlohmann::json::parse("18446744073709551616");  // 2^64: one past the widest field's limit
  EXPECT_EQ(testing_support::error_message(d),
            "/seed: expected a non-negative integer <= 18446744073709551615, got 18446744073709551616: too large");
  d["seed"] = 1e17;  // within 2^64 but written with an exponent: the 2^53 message stays
  EXPECT_NE(testing_support::error_message(d).find("written without a fraction or exponent"), std::string::npos);
}

}  // namespace
}  // namespace pstwin
