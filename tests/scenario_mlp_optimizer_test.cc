// Scenario keys of the MLP (model.hidden) and of the adaptive optimizers (training.optimizer
// "adagrad" / "adam", beta1, beta2, epsilon): values, defaults, strict errors with their JSON
// pointers, and the hand-over into JobSpec.
#include <gtest/gtest.h>

#include "tests/scenario_test_support.h"

#include <functional>
#include <string>
#include <vector>

#include "runtime/errors.h"
#include "runtime/job_setup.h"
#include "runtime/scenario/scenario.h"

namespace pstwin {
namespace {

using testing_support::error_message;
using testing_support::error_pointer;

using nlohmann::json;

json mlp_adam_scenario() {
  return json::parse(R"({
    "name": "mlp-adam", "seed": 1,
    "data": {"format": "idx", "train": "/d/ti", "train_labels": "/d/tl",
             "test": "/d/si", "test_labels": "/d/sl"},
    "model": {"type": "mlp", "hidden": [128, 64], "l2": 1e-5},
    "training": {"iterations": 100, "batch_size": 32, "learning_rate": 0.001,
                 "optimizer": "adam", "beta1": 0.8, "beta2": 0.99, "epsilon": 1e-6},
    "consistency": [{"mode": "bsp"}],
    "cluster": {"workers": 2, "servers": 1,
                "worker": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "50us"}},
                "server": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "50us"}}}
  })");
}


TEST(ScenarioMlpOptimizer, ReadsHiddenLayersAndAdamHyperparameters) {
  const Scenario s = parse_scenario(mlp_adam_scenario());
  EXPECT_EQ(s.model.type, "mlp");
  EXPECT_EQ(s.model.hidden, (std::vector<std::uint32_t>{128, 64}));
  EXPECT_EQ(s.training.optimizer, "adam");
  EXPECT_DOUBLE_EQ(s.training.beta1, 0.8);
  EXPECT_DOUBLE_EQ(s.training.beta2, 0.99);
  EXPECT_DOUBLE_EQ(s.training.epsilon, 1e-6);

  // The JobSpec hands all of it to the servers' ServerOptimizer.
  const JobSpec spec = make_job_spec(s, s.consistency[0], PreparedTraining{});
  EXPECT_EQ(spec.optimizer.kind, "adam");
  EXPECT_DOUBLE_EQ(spec.optimizer.beta1, 0.8);
  EXPECT_DOUBLE_EQ(spec.optimizer.beta2, 0.99);
  EXPECT_DOUBLE_EQ(spec.optimizer.epsilon, 1e-6);
}

TEST(ScenarioMlpOptimizer, DefaultsAndAdagradWithEpsilon) {
  json d = mlp_adam_scenario();
  for (const char* key : {"beta1", "beta2", "epsilon"}) d["training"].erase(key);
  Scenario s = parse_scenario(d);
  EXPECT_DOUBLE_EQ(s.training.beta1, 0.9);
  EXPECT_DOUBLE_EQ(s.training.beta2, 0.999);
  EXPECT_DOUBLE_EQ(s.training.epsilon, 1e-8);

  d["training"]["optimizer"] = "adagrad";
  d["training"]["epsilon"] = 1e-10;
  s = parse_scenario(d);
  EXPECT_EQ(s.training.optimizer, "adagrad");
  EXPECT_DOUBLE_EQ(s.training.epsilon, 1e-10);
  EXPECT_EQ(make_job_spec(s, s.consistency[0], PreparedTraining{}).optimizer.kind, "adagrad");
}

struct BadCase {
  const char* what;
  std::function<void(json&)> mutate;
  const char* pointer;
};

TEST(ScenarioMlpOptimizer, InvalidInputsNameTheExactPointer) {
  const std::vector<BadCase> cases = {
      {"mlp without hidden", [](json& d) { d["model"].erase("hidden"); }, "/model/hidden"},
      {"hidden empty", [](json& d) { d["model"]["hidden"] = json::array(); }, "/model/hidden"},
      {"hidden not a list", [](json& d) { d["model"]["hidden"] = 128; }, "/model/hidden"},
      {"hidden width 0", [](json& d) { d["model"]["hidden"] = {128, 0}; }, "/model/hidden/1"},
      {"hidden width negative", [](json& d) { d["model"]["hidden"] = {-4}; }, "/model/hidden/0"},
      {"hidden width fractional", [](json& d) { d["model"]["hidden"] = {12.5}; }, "/model/hidden/0"},
      {"hidden width string", [](json& d) { d["model"]["hidden"] = {"128"}; }, "/model/hidden/0"},
      {"hidden on softmax", [](json& d) { d["model"]["type"] = "softmax"; }, "/model/hidden"},
      {"unknown optimizer", [](json& d) { d["training"]["optimizer"] = "rmsprop"; }, "/training/optimizer"},
      {"beta1 with adagrad",
       [](json& d) { d["training"]["optimizer"] = "adagrad"; }, "/training/beta1"},
      {"beta2 with sgd",
       [](json& d) {
         d["training"]["optimizer"] = "sgd";
         d["training"].erase("beta1");
       },
       "/training/beta2"},
      {"epsilon with momentum",
       [](json& d) {
         d["training"] = {{"iterations", 1}, {"batch_size", 1}, {"learning_rate", 0.1},
                          {"optimizer", "momentum"}, {"epsilon", 1e-8}};
       },
       "/training/epsilon"},
      {"epsilon with default sgd",
       [](json& d) {
         d["training"] = {{"iterations", 1}, {"batch_size", 1}, {"learning_rate", 0.1}, {"epsilon", 1e-8}};
       },
       "/training/epsilon"},
      {"beta1 = 1", [](json& d) { d["training"]["beta1"] = 1.0; }, "/training/beta1"},
      {"beta2 negative", [](json& d) { d["training"]["beta2"] = -0.1; }, "/training/beta2"},
      {"beta1 string", [](json& d) { d["training"]["beta1"] = "0.9"; }, "/training/beta1"},
      {"epsilon 0", [](json& d) { d["training"]["epsilon"] = 0; }, "/training/epsilon"},
      {"epsilon negative", [](json& d) { d["training"]["epsilon"] = -1e-8; }, "/training/epsilon"},
      {"momentum with adam", [](json& d) { d["training"]["momentum"] = 0.9; }, "/training/momentum"},
  };
  for (const BadCase& c : cases) {
    json d = mlp_adam_scenario();
    c.mutate(d);
    EXPECT_EQ(error_pointer(d), c.pointer) << c.what;
  }
}

}  // namespace
}  // namespace pstwin
