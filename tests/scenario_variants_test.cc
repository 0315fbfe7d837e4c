// Variants as overrides of a base scenario ("variants"), the "consistency" shorthand, and the
// training fields that say how long a run lasts (epochs, stop_at_target, time_budget).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "runtime/errors.h"
#include "runtime/roles/evaluation.h"
#include "runtime/scenario/scenario.h"
#include "tests/scenario_test_support.h"

namespace pstwin {
namespace {

using nlohmann::json;
using testing_support::error_message;
using testing_support::error_pointer;

/// A base scenario (absolute data paths, so nothing is resolved) in the shorthand form.
json shorthand() {
  return json::parse(R"({
    "name": "v", "seed": 5,
    "data": {"format": "idx", "train": "/d/ti", "train_labels": "/d/tl", "test": "/d/si", "test_labels": "/d/sl"},
    "model": {"type": "mlp", "hidden": [16]},
    "training": {"iterations": 100, "batch_size": 32, "learning_rate": 0.003, "optimizer": "adam",
                 "eval_every": 20, "target_metric": 0.8},
    "consistency": [{"mode": "bsp"}, {"mode": "asp"}, {"mode": "ssp", "staleness": 3}],
    "cluster": {"workers": 4, "servers": 2,
                "worker": {"device": "v100", "link": {"bandwidth": "10Gbps", "latency": "50us"}},
                "server": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "50us"}}},
    "stragglers": [{"type": "slow", "workers": [3], "factor": 2}],
    "failures": [{"node": "worker:1", "at": "1s", "recover_at": "2s"}]
  })");
}

/// The same runs written as variants, with ASP and SSP at their own learning rate.
json with_variants() {
  json d = shorthand();
  d.erase("consistency");
  d["fault_tolerance"] = {{"replication", 2}};
  d["variants"] = json::parse(R"([
    {"name": "bsp"},
    {"name": "asp", "consistency": {"mode": "asp"}, "set": {"/training/learning_rate": 0.0004}},
    {"name": "ssp3", "consistency": {"mode": "ssp", "staleness": 3},
     "set": {"/training/learning_rate": 0.001, "/cluster/workers": 8}},
    {"name": "no-failures", "set": {"/failures": []}},
    {"name": "no-ft", "set": {"/failures": [], "/fault_tolerance": null, "/training/eval_every": null}}
  ])");
  return d;
}

TEST(ScenarioVariants, EachVariantResolvesToTheBaseWithItsOverrides) {
  const Scenario s = parse_scenario(with_variants());
  ASSERT_EQ(s.consistency.size(), 5u);
  EXPECT_EQ(s.consistency[1].name, "asp");
  EXPECT_EQ(s.consistency[1].config.mode, ConsistencyMode::kAsp);
  EXPECT_EQ(s.consistency[2].config.staleness, 3);
  EXPECT_DOUBLE_EQ(s.training.learning_rate, 0.003);  // the base keeps its own

  const Scenario bsp = scenario_for_variant(s, 0);
  ASSERT_EQ(bsp.consistency.size(), 1u);
  EXPECT_EQ(bsp.consistency[0].name, "bsp");
  EXPECT_EQ(bsp.consistency[0].config.mode, ConsistencyMode::kBsp);
  EXPECT_DOUBLE_EQ(bsp.training.learning_rate, 0.003);

  const Scenario asp = scenario_for_variant(s, 1);
  EXPECT_DOUBLE_EQ(asp.training.learning_rate, 0.0004);
  EXPECT_EQ(asp.cluster.workers, 4u);
  EXPECT_EQ(asp.consistency[0].config.mode, ConsistencyMode::kAsp);

  const Scenario ssp = scenario_for_variant(s, 2);
  EXPECT_DOUBLE_EQ(ssp.training.learning_rate, 0.001);
  EXPECT_EQ(ssp.cluster.workers, 8u);
  EXPECT_EQ(ssp.failures.size(), 1u);

  // A baseline: fault tolerance (replication, heartbeats) on, with nothing failing.
  const Scenario baseline = scenario_for_variant(s, 3);
  EXPECT_TRUE(baseline.failures.empty());
  EXPECT_TRUE(baseline.fault_tolerance.enabled);
  EXPECT_EQ(baseline.fault_tolerance.replication, 2u);
  // Null removes a key: no fault tolerance at all, and eval_every back to its default.
  const Scenario plain = scenario_for_variant(s, 4);
  EXPECT_TRUE(plain.failures.empty());
  EXPECT_FALSE(plain.fault_tolerance.enabled);
  EXPECT_EQ(plain.fault_tolerance.replication, 1u);
  EXPECT_EQ(scenario_for_variant(s, 3).training.eval_every, 20u);
  EXPECT_EQ(plain.training.eval_every, 10u);
  EXPECT_FALSE(plain.source.contains("fault_tolerance"));

  // Each resolved source is a scenario of its own that parses to the same run.
  const Scenario again = parse_scenario(asp.source);
  ASSERT_EQ(again.consistency.size(), 1u);
  EXPECT_EQ(again.consistency[0].name, "asp");
  EXPECT_DOUBLE_EQ(again.training.learning_rate, 0.0004);
}

// Every top-level section of a scenario may also stand beside "variants", and a variant may
// override it: the two parsers read one list of sections (kScenarioSections).
TEST(ScenarioVariants, EverySectionMayStandBesideVariants) {
  json d = with_variants();
  d["partition"] = "consistent_hash";
  d["compression"] = {{"push", {{"format", "int8"}}}};
  d["variants"][1]["set"]["/partition"] = "range";
  const Scenario s = parse_scenario(d);
  EXPECT_EQ(scenario_for_variant(s, 0).partition.scheme, PartitionScheme::kConsistentHash);
  EXPECT_EQ(scenario_for_variant(s, 1).partition.scheme, PartitionScheme::kRange);
  EXPECT_EQ(scenario_for_variant(s, 0).compression.push.format, ValueFormat::kInt8);
}

TEST(ScenarioVariants, TheShorthandResolvesAsBefore) {
  const json doc = shorthand();
  const Scenario s = parse_scenario(doc);
  ASSERT_EQ(s.consistency.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    const Scenario run = scenario_for_variant(s, i);
    ASSERT_EQ(run.consistency.size(), 1u);
    EXPECT_EQ(run.consistency[0].name, s.consistency[i].name);
    EXPECT_EQ(run.consistency[0].config.mode, s.consistency[i].config.mode);
    EXPECT_EQ(run.consistency[0].config.staleness, s.consistency[i].config.staleness);
    // The whole scenario as written (summary.json's config is unchanged) and every section.
    EXPECT_EQ(run.source, doc);
    EXPECT_DOUBLE_EQ(run.training.learning_rate, 0.003);
    EXPECT_EQ(run.training.iterations, 100u);
    EXPECT_EQ(run.cluster.workers, 4u);
    EXPECT_EQ(run.failures.size(), 1u);
    EXPECT_EQ(run.stragglers.size(), 1u);
  }
  EXPECT_EQ(scenario_for_variant(s, 2).consistency[0].name, "ssp3");

  // The same runs as variants resolve to the same values.
  json as_variants = shorthand();
  as_variants.erase("consistency");
  as_variants["variants"] = json::parse(R"([{"name": "bsp"}, {"name": "asp", "consistency": {"mode": "asp"}},
    {"name": "ssp3", "consistency": {"mode": "ssp", "staleness": 3}}])");
  const Scenario v = parse_scenario(as_variants);
  for (std::size_t i = 0; i < 3; ++i) {
    const Scenario a = scenario_for_variant(s, i), b = scenario_for_variant(v, i);
    EXPECT_EQ(a.consistency[0].name, b.consistency[0].name);
    EXPECT_EQ(a.consistency[0].config.mode, b.consistency[0].config.mode);
    EXPECT_EQ(a.consistency[0].config.staleness, b.consistency[0].config.staleness);
    EXPECT_EQ(a.source["training"], b.source["training"]);
    EXPECT_EQ(a.source["cluster"], b.source["cluster"]);
  }
}

TEST(ScenarioVariants, AHandBuiltScenarioGivesItselfWithOneVariant) {
  Scenario s = parse_scenario(shorthand());
  s.variant_scenarios.clear();
  s.training.learning_rate = 0.5;
  const Scenario run = scenario_for_variant(s, 1);
  ASSERT_EQ(run.consistency.size(), 1u);
  EXPECT_EQ(run.consistency[0].name, "asp");
  EXPECT_DOUBLE_EQ(run.training.learning_rate, 0.5);
  EXPECT_THROW(scenario_for_variant(s, 3), std::out_of_range);
}

struct BadVariant {
  const char* what;
  std::function<void(json&)> mutate;
  const char* pointer;
};

TEST(ScenarioVariants, ErrorsNameThePointerInsideTheVariant) {
  const std::vector<BadVariant> cases = {
      {"bad learning rate", [](json& d) { d["variants"][1]["set"]["/training/learning_rate"] = -1; },
       "/variants/1/set/~1training~1learning_rate"},
      {"unknown key", [](json& d) { d["variants"][1]["set"]["/training/learnin_rate"] = 0.1; },
       "/variants/1/set/~1training~1learnin_rate"},
      {"parent missing", [](json& d) { d["variants"][0]["set"] = {{"/simulation/cfg", json::array()}}; },
       "/variants/0/set/~1simulation~1cfg"},
      {"index past the end", [](json& d) { d["variants"][0]["set"] = {{"/stragglers/5", json::object()}}; },
       "/variants/0/set/~1stragglers~15"},
      {"deep error under a set", [](json& d) { d["variants"][0]["set"] = {{"/stragglers", json::array({{{"type", "slow"}, {"workers", {0}}, {"factor", 0.5}}})}}; },
       "/variants/0/set/~1stragglers/0/factor"},
      {"remove what is not there", [](json& d) { d["variants"][0]["set"] = {{"/simulation", nullptr}}; },
       "/variants/0/set/~1simulation"},
      {"remove a required key", [](json& d) { d["variants"][0]["set"] = {{"/training/batch_size", nullptr}}; },
       "/variants/0/set/~1training~1batch_size"},
      {"key not a pointer", [](json& d) { d["variants"][0]["set"] = {{"training", 1}}; }, "/variants/0/set/training"},
      {"set the name", [](json& d) { d["variants"][0]["set"] = {{"/name", "x"}}; }, "/variants/0/set/~1name"},
      {"set the output", [](json& d) { d["variants"][0]["set"] = {{"/output/dir", "x"}}; },
       "/variants/0/set/~1output~1dir"},
      {"set not an object", [](json& d) { d["variants"][0]["set"] = json::array(); }, "/variants/0/set"},
      {"bad mode", [](json& d) { d["variants"][2]["consistency"]["mode"] = "async"; }, "/variants/2/consistency/mode"},
      {"consistency with a name", [](json& d) { d["variants"][1]["consistency"]["name"] = "x"; },
       "/variants/1/consistency/name"},
      {"consistency a list", [](json& d) { d["variants"][1]["consistency"] = json::array({{{"mode", "asp"}}}); },
       "/variants/1/consistency"},
      {"backup workers over the set workers",
       [](json& d) { d["variants"][1]["consistency"] = {{"mode", "bsp"}, {"backup_workers", 3}};
                     d["variants"][1]["set"] = {{"/cluster/workers", 3}}; },
       "/variants/1/consistency/backup_workers"},
      {"base and overrides clash", [](json& d) { d["variants"][0]["set"] = {{"/cluster/workers", 2}}; },
       "/variants/0"},
      {"missing name", [](json& d) { d["variants"][0].erase("name"); }, "/variants/0/name"},
      {"bad name", [](json& d) { d["variants"][0]["name"] = "a b"; }, "/variants/0/name"},
      {"output file name", [](json& d) { d["variants"][0]["name"] = "comparison.csv"; }, "/variants/0/name"},
      {"duplicate name", [](json& d) { d["variants"][3]["name"] = "asp"; }, "/variants/3/name"},
      {"unknown variant key", [](json& d) { d["variants"][0]["lr"] = 1; }, "/variants/0/lr"},
      {"no variants", [](json& d) { d["variants"] = json::array(); }, "/variants"},
      {"shorthand beside variants", [](json& d) { d["consistency"] = json::array({{{"mode", "bsp"}}}); }, "/consistency"},
      {"base consistency named", [](json& d) { d["consistency"] = {{"mode", "asp"}, {"name", "x"}}; },
       "/consistency/name"},
      {"base error", [](json& d) { d["consistency"] = {{"mode", "ssp"}}; }, "/consistency/staleness"},
      {"base error elsewhere", [](json& d) { d["cluster"]["workers"] = 0; }, "/cluster/workers"},
  };
  for (const auto& c : cases) {
    json d = with_variants();
    c.mutate(d);
    EXPECT_EQ(error_pointer(d), c.pointer) << c.what << ": " << error_message(d);
  }
}

TEST(ScenarioVariants, AnUnknownPointerIsAnErrorNamingIt) {
  json d = with_variants();
  d["variants"][1]["set"]["/training/learnin_rate"] = 0.1;
  const std::string message = error_message(d);
  EXPECT_NE(message.find("/variants/1/set/~1training~1learnin_rate: unknown key \"learnin_rate\""),
            std::string::npos) << message;
  // A clash names the pointer of the resolved scenario in the message.
  d = with_variants();
  d["variants"][0]["set"] = {{"/cluster/workers", 2}};
  EXPECT_NE(error_message(d).find("/stragglers/0/workers/0"), std::string::npos) << error_message(d);
}

// --set null removes a key as a variant's "set" does: a fresh user could not switch the
// quickstart to epochs from the command line ("give iterations or epochs, not both").
TEST(ScenarioVariants, SetToNullOnTheCommandLineRemovesTheKey) {
  json d = shorthand();
  d["fault_tolerance"] = {{"replication", 2}};
  const std::string text = d.dump();
  const Scenario s = parse_scenario_text(text, "v.json", {"/training/iterations=null", "/training/epochs=2",
                                                           "/fault_tolerance=null", "/failures=null"});
  EXPECT_EQ(s.training.epochs, 2.0);
  EXPECT_EQ(s.training.iterations, 0u);
  EXPECT_FALSE(s.fault_tolerance.enabled);
  try {
    (void)parse_scenario_text(text, "v.json", {"/training/momentum=null"});
    FAIL() << "removing a key the scenario does not have was accepted";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.pointer(), "/training/momentum");
    EXPECT_NE(std::string(e.what()).find("the scenario has nothing there"), std::string::npos) << e.what();
  }
}

// CI's fuzzer: an array index past 2^64 in a --set or a variant's set made nlohmann throw its own
// out_of_range, which no caller expects, and validate aborted. It is an index the array lacks.
TEST(ScenarioVariants, AnArrayIndexPastTwoToTheSixtyFourIsAnIndexTheArrayLacks) {
  const std::string text = shorthand().dump();
  const std::string huge = "99999999999999999999999";
  const std::pair<std::string, std::string> cases[] = {
      {"/consistency/" + huge + "/mode=bsp", "cannot set: the parent /consistency/" + huge + " does not exist"},
      {"/consistency/" + huge + "=null", "cannot remove (set to null): the scenario has nothing there"},
      {"/consistency/" + huge + "={\"mode\": \"bsp\"}", "\"" + huge + "\" is not an index in 0..3 of the array"}};
  for (const auto& [set, said] : cases) {
    try {
      (void)parse_scenario_text(text, "v.json", {set});
      FAIL() << set << " was accepted";
    } catch (const ScenarioError& e) {
      EXPECT_NE(std::string(e.what()).find(said), std::string::npos) << set << ": " << e.what();
    }
  }
  json d = with_variants();
  d["variants"][0]["set"] = {{"/stragglers/" + huge + "/factor", 3}};
  EXPECT_NE(error_message(d).find("cannot set: the parent /stragglers/" + huge + " does not exist"), std::string::npos)
      << error_message(d);
}

TEST(ScenarioTraining, EpochsGiveTheSameDataForAnyNumberOfWorkers) {
  json d = shorthand();
  d["training"].erase("iterations");
  d["training"]["epochs"] = 1;
  Scenario s = parse_scenario(d);
  EXPECT_EQ(s.training.iterations, 0u);
  ASSERT_TRUE(s.training.epochs);
  const std::uint64_t rows = 60000, batch = 32;
  // ceil(60000 / (4 * 32)) = 469 and ceil(60000 / (8 * 32)) = 235.
  s.cluster.workers = 4;
  const std::uint64_t four = iterations_per_worker(s, rows);
  s.cluster.workers = 8;
  const std::uint64_t eight = iterations_per_worker(s, rows);
  EXPECT_EQ(four, 469u);
  EXPECT_EQ(eight, 235u);
  // Examples seen: at least the epoch, and less than one more clock of every worker beyond it.
  EXPECT_GE(four * 4 * batch, rows);
  EXPECT_LT(four * 4 * batch, rows + 4 * batch);
  EXPECT_GE(eight * 8 * batch, rows);
  EXPECT_LT(eight * 8 * batch, rows + 8 * batch);
  // An exact fit is not rounded: 2 epochs of 1024 rows over 4 x 32 is 16 clocks.
  s.cluster.workers = 4;
  s.training.epochs = 2.0;
  EXPECT_EQ(iterations_per_worker(s, 1024), 16u);
  // Without epochs, the iterations as given.
  const Scenario fixed = parse_scenario(shorthand());
  EXPECT_EQ(iterations_per_worker(fixed, rows), 100u);
}

TEST(ScenarioTraining, HowLongARunLastsIsValidated) {
  const std::vector<BadVariant> cases = {
      {"both", [](json& d) { d["training"]["epochs"] = 2; }, "/training/iterations"},
      {"neither", [](json& d) { d["training"].erase("iterations"); }, "/training/iterations"},
      {"zero epochs", [](json& d) { d["training"].erase("iterations"); d["training"]["epochs"] = 0; },
       "/training/epochs"},
      {"stop without a target", [](json& d) { d["training"].erase("target_metric"); d["training"]["stop_at_target"] = true; },
       "/training/stop_at_target"},
      {"stop not a bool", [](json& d) { d["training"]["stop_at_target"] = "yes"; }, "/training/stop_at_target"},
      {"budget without unit", [](json& d) { d["training"]["time_budget"] = 30; }, "/training/time_budget"},
      {"budget zero", [](json& d) { d["training"]["time_budget"] = "0s"; }, "/training/time_budget"},
  };
  for (const auto& c : cases) {
    json d = shorthand();
    c.mutate(d);
    EXPECT_EQ(error_pointer(d), c.pointer) << c.what << ": " << error_message(d);
  }
  json ok = shorthand();
  ok["training"]["stop_at_target"] = true;
  ok["training"]["time_budget"] = "90s";
  const Scenario s = parse_scenario(ok);
  EXPECT_TRUE(s.training.stop_at_target);
  ASSERT_TRUE(s.training.time_budget_s);
  EXPECT_DOUBLE_EQ(*s.training.time_budget_s, 90.0);
}

TEST(StopRules, TheFirstEvaluationAtOrPastTheTargetOrTheBudgetStops) {
  JobSpec spec;
  EvalRow row;
  row.clock = 40;
  row.time_s = 2.5;
  row.test_metric = 0.85;
  EXPECT_EQ(stop_rule_met(spec, row).rule, "");  // no rules: never
  spec.stop_at_metric = 0.85;
  EXPECT_EQ(stop_rule_met(spec, row).rule, "target_metric");  // at the target
  row.test_metric = 0.849;
  EXPECT_EQ(stop_rule_met(spec, row).rule, "");
  row.test_metric = NAN;
  EXPECT_EQ(stop_rule_met(spec, row).rule, "");
  // Lower is better (rmse): at or below.
  spec.higher_is_better = false;
  spec.stop_at_metric = 0.9;
  row.test_metric = 0.9;
  EXPECT_EQ(stop_rule_met(spec, row).rule, "target_metric");
  row.test_metric = 0.95;
  EXPECT_EQ(stop_rule_met(spec, row).rule, "");
  spec.time_budget_s = 2.5;
  const StopDecision budget = stop_rule_met(spec, row);
  EXPECT_EQ(budget.rule, "time_budget");
  EXPECT_NE(budget.reason.find("clock 40"), std::string::npos) << budget.reason;
  spec.time_budget_s = 2.6;
  EXPECT_EQ(stop_rule_met(spec, row).rule, "");
}

}  // namespace
}  // namespace pstwin
