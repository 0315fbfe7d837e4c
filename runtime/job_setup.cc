#include "runtime/job_setup.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "runtime/data/ratings.h"
#include "runtime/errors.h"
#include "runtime/job_checks.h"
#include "runtime/model/label_fit.h"
#include "runtime/model/mf_model.h"
#include "runtime/rng.h"

namespace pstwin {

namespace {
// Streams of Rng::derive_seed used here (node id kNoNode: not a node's stream).
constexpr std::uint64_t kNoNode = ~std::uint64_t{0};
constexpr std::uint64_t kPartitionStream = 1;
constexpr std::uint64_t kTrainEvalStream = 2;
constexpr std::uint64_t kRatingsSplitStream = 3;

void shuffle(std::vector<std::uint32_t>& v, Rng& rng) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.below(i)]);
}
}  // namespace

PreparedTraining prepare_training(const Scenario& scenario) {
  PreparedTraining p;
  if (scenario.model.type == "synthetic") {
    check_servers_have_keys(scenario, scenario.model.parameters);
    return p;
  }
  const DataSection& d = *scenario.data;
  if (d.format == "ratings") {
    RatingsSplit split =
        read_ratings(d.file, d.test_fraction, Rng::derive_seed(scenario.seed, kNoNode, kRatingsSplitStream));
    p.train = std::make_unique<Dataset>(std::move(split.train));
    p.test = std::make_unique<Dataset>(std::move(split.test));
  } else if (d.format == "libsvm") {
    p.train = std::make_unique<Dataset>(read_libsvm(d.train));
    p.test = std::make_unique<Dataset>(read_libsvm(d.test));
  } else {
    p.train = std::make_unique<Dataset>(read_idx(d.train, d.train_labels));
    p.test = std::make_unique<Dataset>(read_idx(d.test, d.test_labels));
  }
  // Labels the model cannot learn are named with their line, before the model counts classes.
  check_labels_fit(scenario.model.type, *p.train);
  check_labels_fit(scenario.model.type, *p.test);
  // A test set may use fewer feature indices or classes than the training set (or more: a
  // feature never seen in training simply has weight zero).
  const std::size_t features = std::max(p.train->cols, p.test->cols);
  const std::size_t classes = std::max(p.train->num_classes, p.test->num_classes);
  try {
    p.model = scenario.model.type == "mf" ? make_mf_model(scenario.model, *p.train)
                                          : make_model(scenario.model, features, classes);
  } catch (const std::invalid_argument& e) {
    throw ScenarioError("/model/type", e.what());
  }

  check_servers_have_keys(scenario, p.model->num_parameters() / p.model->values_per_key());
  if (const auto& target = scenario.training.target_metric) {
    const bool accuracy = metric_goal(p).name == "accuracy";
    if (accuracy ? (*target <= 0.0 || *target > 1.0) : *target <= 0.0)
      throw ScenarioError("/training/target_metric",
                          "a target " + metric_goal(p).name + " must be " +
                              (accuracy ? "in (0, 1]" : "positive") + ", got " +
                              std::to_string(*target));
  }

  const std::uint32_t workers = scenario.cluster.workers;
  const std::size_t n = p.train->rows;
  check_workers_have_rows(scenario, n, p.train->source);
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  if (d.partition == "shuffled") {
    Rng rng(Rng::derive_seed(scenario.seed, kNoNode, kPartitionStream));
    shuffle(order, rng);
  }
  p.worker_rows.resize(workers);
  for (std::uint32_t w = 0; w < workers; ++w) {
    const std::size_t begin = n * w / workers, end = n * (w + 1) / workers;
    p.worker_rows[w].assign(order.begin() + static_cast<long>(begin),
                            order.begin() + static_cast<long>(end));
  }
  // A seeded sample of training rows for train_loss, so evaluating stays cheap on big sets.
  std::vector<std::uint32_t> sample(n);
  std::iota(sample.begin(), sample.end(), 0u);
  if (d.train_eval_rows < n) {
    Rng rng(Rng::derive_seed(scenario.seed, kNoNode, kTrainEvalStream));
    shuffle(sample, rng);
    sample.resize(d.train_eval_rows);
    std::sort(sample.begin(), sample.end());
  }
  p.train_eval_rows = std::move(sample);
  return p;
}

bool same_preparation(const Scenario& a, const Scenario& b) {
  auto section = [](const Scenario& s, const char* key) {
    return s.source.is_object() ? s.source.value(key, nlohmann::json()) : nlohmann::json();
  };
  return a.seed == b.seed && a.cluster.workers == b.cluster.workers &&
         section(a, "data") == section(b, "data") && section(a, "model") == section(b, "model");
}

MetricGoal metric_goal(const PreparedTraining& prepared) {
  if (!prepared.model) return MetricGoal{"", true};
  return MetricGoal{prepared.model->metric_name(), prepared.model->higher_is_better()};
}

JobSpec make_job_spec(const Scenario& scenario, const ConsistencyVariant& variant,
                      const PreparedTraining& prepared) {
  JobSpec spec;
  spec.layout = JobLayout{scenario.cluster.servers, scenario.cluster.workers};
  spec.consistency = variant.config;
  spec.iterations = iterations_per_worker(scenario, prepared.train ? prepared.train->rows : 0);
  spec.batch_size = scenario.training.batch_size;
  spec.learning_rate = scenario.training.learning_rate;
  spec.optimizer = OptimizerSpec{.kind = scenario.training.optimizer,
                                 .beta1 = scenario.training.beta1,
                                 .beta2 = scenario.training.beta2,
                                 .epsilon = scenario.training.epsilon};
  spec.momentum = scenario.training.momentum;
  spec.eval_every = scenario.training.eval_every;
  if (scenario.training.stop_at_target) spec.stop_at_metric = scenario.training.target_metric;
  spec.higher_is_better = metric_goal(prepared).higher_is_better;
  spec.time_budget_s = scenario.training.time_budget_s;
  const FaultToleranceSection& ft = scenario.fault_tolerance;
  spec.fault = FaultConfig{.enabled = ft.enabled,
                           .replication = ft.replication,
                           .heartbeat_interval_s = ft.heartbeat_interval_s,
                           .heartbeat_timeout_s = ft.heartbeat_timeout_s,
                           .checkpoint_every_clocks = ft.checkpoint_every_clocks,
                           .checkpoint_every_s = ft.checkpoint_every_s};
  if (scenario.model.type == "synthetic") {
    spec.synthetic = SyntheticModel{scenario.model.parameters, scenario.model.flops_per_iteration,
                                    scenario.model.bytes_per_iteration};
  } else {
    spec.model = prepared.model.get();
    spec.train = prepared.train.get();
    spec.test = prepared.test.get();
    spec.worker_rows = prepared.worker_rows;
    spec.train_eval_rows = prepared.train_eval_rows;
  }
  return spec;
}

}  // namespace pstwin
