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
#include "runtime/model_size_checks.h"

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


/// Reads the training set (and the test set when `with_test`), labels checked.
void read_datasets(const Scenario& scenario, bool with_test, PreparedTraining& p) {
  const DataSection& d = *scenario.data;
  if (d.format == "ratings") {
    // One file split in two: both splits come from reading it whole.
    RatingsSplit split =
        read_ratings(d.file, d.test_fraction, Rng::derive_seed(scenario.seed, kNoNode, kRatingsSplitStream));
    p.train = std::make_unique<Dataset>(std::move(split.train));
    if (with_test) p.test = std::make_unique<Dataset>(std::move(split.test));
  } else if (d.format == "libsvm") {
    p.train = std::make_unique<Dataset>(read_libsvm(d.train));
    if (with_test) p.test = std::make_unique<Dataset>(read_libsvm(d.test));
  } else {
    p.train = std::make_unique<Dataset>(read_idx(d.train, d.train_labels));
    if (with_test) p.test = std::make_unique<Dataset>(read_idx(d.test, d.test_labels));
  }
  // Labels the model cannot learn are named with their line, before the model counts classes.
  check_labels_fit(scenario.model.type, *p.train);
  if (p.test) check_labels_fit(scenario.model.type, *p.test);
}

/// The shape of the model for the training and test sets of `p` (both read).
ModelShape shape_of(const PreparedTraining& p) {
  ModelShape shape;
  // A test set may use fewer feature indices or classes than the training set (or more: a
  // feature never seen in training simply has weight zero).
  shape.features = std::max(p.train->cols, p.test->cols);
  shape.classes = std::max(p.train->num_classes, p.test->num_classes);
  shape.train_rows = p.train->rows;
  if (const auto& r = p.train->ratings) {
    shape.users = r->num_users;
    shape.items = r->num_items;
    shape.train_mean = r->train_mean;
  }
  return shape;
}

/// By key, the training rows of `train` that touch it (Model::batch_keys row by row).
std::vector<std::uint64_t> key_access_counts(const Model& model, const Dataset& train) {
  std::vector<std::uint64_t> counts(model.num_parameters() / model.values_per_key(), 0);
  for (std::uint32_t row = 0; row < train.rows; ++row)
    for (std::uint64_t k : model.batch_keys(train, RowSelection{&row, 1})) ++counts.at(k);
  return counts;
}

/// Gives worker w rows [w*N/W, (w+1)*N/W) of the training set, in file order or shuffled.
void partition(const Scenario& scenario, PreparedTraining& p) {
  const std::uint32_t workers = scenario.cluster.workers;
  const std::size_t n = p.train->rows;
  check_training_set_size(scenario, n, p.train->source);
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  if (scenario.data->partition == "shuffled") {
    Rng rng(Rng::derive_seed(scenario.seed, kNoNode, kPartitionStream));
    shuffle(order, rng);
  }
  p.worker_rows.resize(workers);
  for (std::uint32_t w = 0; w < workers; ++w) {
    const std::size_t begin = n * w / workers, end = n * (w + 1) / workers;
    p.worker_rows[w].assign(order.begin() + static_cast<long>(begin),
                            order.begin() + static_cast<long>(end));
  }
}

/// A seeded sample of training rows for train_loss, so evaluating stays cheap on big sets.
void sample_train_eval_rows(const Scenario& scenario, PreparedTraining& p) {
  const std::size_t n = p.train->rows;
  std::vector<std::uint32_t> sample(n);
  std::iota(sample.begin(), sample.end(), 0u);
  if (scenario.data->train_eval_rows < n) {
    Rng rng(Rng::derive_seed(scenario.seed, kNoNode, kTrainEvalStream));
    shuffle(sample, rng);
    sample.resize(scenario.data->train_eval_rows);
    std::sort(sample.begin(), sample.end());
  }
  p.train_eval_rows = std::move(sample);
}
}  // namespace

std::unique_ptr<Model> model_for_shape(const Scenario& scenario, const ModelShape& shape) {
  try {
    if (scenario.model.type == "mf") {
      if (scenario.data->format != "ratings")
        throw std::invalid_argument("model type \"mf\" needs ratings data (data format \"ratings\")");
      return std::make_unique<MfModel>(shape.users, shape.items, shape.train_mean, scenario.model.rank,
                                       scenario.model.l2, scenario.model.init_scale);
    }
    return make_model(scenario.model, shape.features, shape.classes);
  } catch (const std::invalid_argument& e) {
    throw ScenarioError("/model/type", e.what());
  }
}

void build_model(const Scenario& scenario, const ModelShape& shape, PreparedTraining& p) {
  if (scenario.model.type == "synthetic") return;
  p.shape = shape;
  p.model = model_for_shape(scenario, shape);
  check_job_fits_model(scenario, model_keys(*p.model));
}

ModelShape read_model_shape(const Scenario& scenario) {
  PreparedTraining p;
  read_datasets(scenario, /*with_test=*/true, p);
  return shape_of(p);
}

PreparedTraining prepare_node_data(const Scenario& scenario, NodeData data, std::size_t* rows_read) {
  PreparedTraining p;
  if (rows_read) *rows_read = 0;
  if (scenario.model.type == "synthetic") {
    check_job_fits_model(scenario, ModelKeys{scenario.model.parameters, 1, false});
    return p;
  }
  if (data == NodeData::kNone) return p;
  read_datasets(scenario, data == NodeData::kAll, p);
  if (rows_read) *rows_read = p.train->rows + (p.test ? p.test->rows : 0);
  if (data == NodeData::kAll) {
    build_model(scenario, shape_of(p), p);
    if (p.model->sparse()) p.shape.key_accesses = key_access_counts(*p.model, *p.train);
  }
  partition(scenario, p);
  if (data == NodeData::kAll) sample_train_eval_rows(scenario, p);
  return p;
}

PreparedTraining prepare_training(const Scenario& scenario) {
  return prepare_node_data(scenario, NodeData::kAll);
}

bool same_model(const Scenario& a, const Scenario& b) {
  return source_section(a, "data") == source_section(b, "data") &&
         source_section(a, "model") == source_section(b, "model");
}

bool same_preparation(const Scenario& a, const Scenario& b) {
  return a.seed == b.seed && a.cluster.workers == b.cluster.workers && same_model(a, b);
}

MetricGoal metric_goal(const PreparedTraining& prepared) {
  if (!prepared.model) return MetricGoal{"", true};
  return MetricGoal{prepared.model->metric_name(), prepared.model->higher_is_better()};
}

MetricGoal scenario_metric_goal(const Scenario& scenario) {
  if (scenario.model.type == "synthetic") return MetricGoal{"", true};
  if (scenario.model.type == "mf") return MetricGoal{"rmse", false};
  return MetricGoal{"accuracy", true};
}

JobSpec make_job_spec(const Scenario& scenario, const ConsistencyVariant& variant,
                      const PreparedTraining& prepared) {
  JobSpec spec;
  spec.layout = JobLayout{scenario.cluster.servers, scenario.cluster.workers};
  spec.consistency = variant.config;
  spec.workers_per_host = scenario.cluster.workers_per_host;
  // From the shape: a server has no training set, only the shape the scheduler sent it.
  spec.iterations = iterations_per_worker(scenario, prepared.train ? prepared.train->rows : prepared.shape.train_rows);
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
  spec.compression = scenario.compression;
  spec.compression.seed = scenario.seed;
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
  spec.partition = scenario.partition;
  for (const FailureSpec& f : scenario.failures)
    if (f.kind == FailureSpec::Kind::kJoin) ++spec.partition.joining_servers;
  if (spec.partition.scheme == PartitionScheme::kBalanced)
    spec.partition.block_owner = balanced_owners(
        block_weights(spec.num_keys(), spec.partition.block_keys, prepared.shape.key_accesses),
        spec.layout.servers);
  return spec;
}

}  // namespace pstwin
