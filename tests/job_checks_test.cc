// The checks a job makes once it knows its data: the training set's size against workers,
// epochs and batch, and a target the model's metric can reach (known right values and bounds).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "runtime/errors.h"
#include "runtime/job_checks.h"
#include "runtime/job_setup.h"
#include "runtime/model/mf_model.h"
#include "runtime/model/model.h"
#include "runtime/scenario/scenario.h"

namespace pstwin {
namespace {

using nlohmann::json;

Scenario synthetic_with(const json& training, std::uint32_t workers, const std::string& model = "synthetic") {
  json doc = json::parse(R"({
    "name": "checks", "seed": 1,
    "model": {"type": "synthetic", "parameters": 1000, "flops_per_iteration": 1e6, "bytes_per_iteration": 1e6},
    "consistency": [{"mode": "bsp"}],
    "cluster": {"workers": 1, "servers": 1,
                "worker": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "50us"}},
                "server": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "50us"}}}
  })");
  doc["training"] = training;
  doc["cluster"]["workers"] = workers;
  Scenario s = parse_scenario(doc);
  s.model.type = model;  // the checks read only the type; a real one would need data to parse
  return s;
}

std::string pointer_of_refusal(const Scenario& s, std::uint64_t rows, bool exact = true) {
  try {
    check_training_set_size(s, rows, "train.svm", exact);
  } catch (const ScenarioError& e) {
    return e.pointer();
  }
  return "";
}

TEST(JobChecks, ABatchMustFitTheSmallestPartition) {
  const Scenario s = synthetic_with({{"iterations", 5}, {"batch_size", 250}}, 4);
  EXPECT_EQ(pointer_of_refusal(s, 1000), "");                      // partitions of 250
  EXPECT_EQ(pointer_of_refusal(s, 1003), "");                      // 250 or 251
  EXPECT_EQ(pointer_of_refusal(s, 999), "/training/batch_size");   // the smallest holds 249
  EXPECT_EQ(pointer_of_refusal(s, 999, /*exact=*/false), "");      // a lower bound says nothing
  EXPECT_EQ(pointer_of_refusal(s, 3), "/cluster/workers");         // a worker with no row
}

TEST(JobChecks, EpochsBeyondABillionIterationsAreRefusedEvenFromALowerBound) {
  // 1e9 iterations of 4 workers x 250 examples: exactly 1e12 examples, i.e. 1e9 epochs of 1000 rows.
  // (Set after parsing: the synthetic model, which needs no data, has no epochs to count.)
  auto with_epochs = [](double epochs) {
    Scenario s = synthetic_with({{"iterations", 1}, {"batch_size", 250}}, 4);
    s.training.iterations = 0;
    s.training.epochs = epochs;
    return s;
  };
  const Scenario at = with_epochs(1e9);
  EXPECT_EQ(pointer_of_refusal(at, 1000), "");
  const Scenario over = with_epochs(1.000001e9);
  EXPECT_EQ(pointer_of_refusal(over, 1000), "/training/epochs");
  EXPECT_EQ(pointer_of_refusal(over, 1000, /*exact=*/false), "/training/epochs");
}

TEST(JobChecks, TargetsFollowTheModelsMetric) {
  auto refused = [](const std::string& model, double target) {
    const Scenario s = synthetic_with({{"iterations", 5}, {"target_metric", target}}, 1, model);
    try {
      check_target_metric(s);
    } catch (const ScenarioError& e) {
      EXPECT_EQ(e.pointer(), "/training/target_metric");
      return true;
    }
    return false;
  };
  EXPECT_FALSE(refused("logistic", 1.0));
  EXPECT_TRUE(refused("logistic", 80.0));  // a percentage
  EXPECT_TRUE(refused("softmax", 0.0));
  EXPECT_FALSE(refused("mf", 0.9));        // an RMSE may exceed 1
  EXPECT_TRUE(refused("mf", -0.1));
  EXPECT_FALSE(refused("synthetic", 80.0));  // no metric: the target is never compared
}

// check_target_metric knows each type's metric without building a model: it must agree with the
// models themselves.
TEST(JobChecks, TheMetricAssumedForEachTypeIsTheModelsOwn) {
  ModelSection section;
  section.hidden = {4};
  for (const char* type : {"logistic", "softmax", "mlp"}) {
    section.type = type;
    const std::size_t classes = section.type == "logistic" ? 2 : 3;
    const auto model = make_model(section, 10, classes);
    Scenario scenario;
    scenario.model.type = type;
    EXPECT_EQ(scenario_metric_goal(scenario).name, model->metric_name()) << type;
    EXPECT_EQ(scenario_metric_goal(scenario).higher_is_better, model->higher_is_better()) << type;
    EXPECT_EQ(model->metric_name(), "accuracy") << type;
  }
  const MfModel mf(5, 5, 3.0, 2, 0.0, 0.1);
  Scenario scenario;
  scenario.model.type = "mf";
  EXPECT_EQ(scenario_metric_goal(scenario).name, mf.metric_name());
  EXPECT_EQ(scenario_metric_goal(scenario).higher_is_better, mf.higher_is_better());
  EXPECT_EQ(mf.metric_name(), "rmse");
  scenario.model.type = "synthetic";
  EXPECT_EQ(scenario_metric_goal(scenario).name, "") << "the synthetic model has no metric";
}

}  // namespace
}  // namespace pstwin
