// Turning a validated Scenario into what the roles need: data, model, partitions, JobSpec.
#pragma once

#include <memory>
#include <vector>

#include "runtime/data/dataset.h"
#include "runtime/model/model.h"
#include "runtime/output/run_recorder.h"
#include "runtime/roles/job.h"
#include "runtime/scenario/scenario.h"

namespace pstwin {

/// What a model's size depends on, read from the data: the same on every node of a job. The
/// scheduler of a real job reads it from its data and sends it in the address book, so that
/// servers build the model without reading any data (net/zmq_env.h).
struct ModelShape {
  std::size_t features = 0;  ///< max(train, test) feature count (not mf)
  std::size_t classes = 0;   ///< max(train, test) class count (not mf)
  std::size_t users = 0;     ///< mf: users of the ratings file
  std::size_t items = 0;     ///< mf: items of the ratings file
  double train_mean = 0.0;   ///< mf: mean rating of the training split
  /// Rows of the training set: with training.epochs, they set the clocks per worker
  /// (iterations_per_worker), which a server must know without reading the data.
  std::size_t train_rows = 0;
  /// Sparse models (mf): by key, how many training rows touch it, the weights a "balanced"
  /// partition places blocks by (key_access_counts). Empty for dense models.
  std::vector<std::uint64_t> key_accesses;
  bool operator==(const ModelShape&) const = default;
};

/// Data and model of a scenario, loaded once and shared read-only by every variant and node.
struct PreparedTraining {
  std::unique_ptr<Dataset> train;   ///< null for the synthetic model
  std::unique_ptr<Dataset> test;
  std::unique_ptr<Model> model;
  std::vector<std::vector<std::uint32_t>> worker_rows;
  std::vector<std::uint32_t> train_eval_rows;
  ModelShape shape;                 ///< of `model` (zeros for the synthetic model)
};

/// Which data a node of a real job reads (prepare_node_data).
enum class NodeData {
  kNone,      ///< a server: no data; the model is built later from the scheduler's shape
  kTraining,  ///< a worker: the training set and its partition (the shape comes later too)
  kAll,       ///< the scheduler (and every in-process or simulated run): everything
};

/// Loads the scenario's data (DataError on a bad file, and naming the file and line of a label
/// the model cannot learn: check_labels_fit), builds its model (ScenarioError at /model when the
/// data does not fit it otherwise, e.g. no features), and partitions the
/// training rows over the workers: "contiguous" gives worker w rows [w*N/W, (w+1)*N/W); "shuffled"
/// does the same over a permutation seeded by the scenario seed. Throws ScenarioError at
/// /cluster/workers when there are fewer training rows than workers.
PreparedTraining prepare_training(const Scenario& scenario);

/// Whether `a` and `b` train the same model on the same data (the same data and model sections),
/// so that their models have one shape and size.
bool same_model(const Scenario& a, const Scenario& b);

/// Whether prepare_training gives the same result for `a` and `b` (same data and model sections,
/// seed and number of workers), so that variants may share one preparation.
bool same_preparation(const Scenario& a, const Scenario& b);

/// Reads what a node of role `data` needs: kAll is prepare_training(scenario); kTraining reads
/// the training set (labels checked as there) and partitions it over the workers, with no model
/// and no test set; kNone reads nothing. Throws as prepare_training does. `rows_read` (optional)
/// receives the number of rows read, training and test together (0 for kNone), for the node's
/// log line.
PreparedTraining prepare_node_data(const Scenario& scenario, NodeData data,
                                   std::size_t* rows_read = nullptr);

/// The model a real scenario trains on data of `shape`, without its parameters (building it
/// allocates nothing in proportion to its size). Throws ScenarioError at /model/type when the
/// data does not fit the model (no features, a logistic model with more than 2 classes, mf
/// without ratings, an mlp past 2^40 parameters). REQUIRES a model type other than "synthetic".
std::unique_ptr<Model> model_for_shape(const Scenario& scenario, const ModelShape& shape);

/// Builds `prepared.model` for `shape` (model_for_shape; a no-op for the synthetic model) and
/// checks the job against it (check_job_fits_model, runtime/model_size_checks.h: ScenarioError
/// at /cluster/servers, /partition/block_keys or /training/target_metric).
void build_model(const Scenario& scenario, const ModelShape& shape, PreparedTraining& prepared);

/// The shape of a real scenario's model from its data read whole, labels checked as
/// prepare_training checks them, the rows then dropped: for `launch` to check the model before
/// any node starts when check_data_cheaply (runtime/data_check.h) cannot tell its size (a
/// LIBSVM or ratings file over its 1 MiB head). key_accesses is left empty. Throws DataError as
/// prepare_training does.
ModelShape read_model_shape(const Scenario& scenario);

/// The test metric of the prepared model (Model::metric_name, higher_is_better), for RunRecorder;
/// an empty name for the synthetic model, which has none.
MetricGoal metric_goal(const PreparedTraining& prepared);

/// The same from the scenario alone, without its data or model (Model::metric_name and
/// higher_is_better by model type): "rmse", lower better, for matrix factorisation ("mf"),
/// "accuracy" for the classifiers, an empty name for "synthetic". For what a process that never
/// prepared the data reads back (a stopped sweep run's figures); tests/job_checks_test.cc holds
/// it in step with the models.
MetricGoal scenario_metric_goal(const Scenario& scenario);

/// The JobSpec of one consistency variant. `prepared` must outlive the returned spec.
JobSpec make_job_spec(const Scenario& scenario, const ConsistencyVariant& variant,
                      const PreparedTraining& prepared);

}  // namespace pstwin
