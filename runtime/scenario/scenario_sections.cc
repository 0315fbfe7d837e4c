// "data", "model", "training" and "cluster": the sections that describe one training job and the
// hardware it runs on. Variants and stragglers are in scenario_variants.cc.
#include "runtime/scenario/scenario_sections.h"

#include <filesystem>
#include <limits>
#include <system_error>
#include <utility>

#include "runtime/errors.h"
#include "runtime/scenario/cluster_include.h"
#include "runtime/rng.h"
#include "runtime/scenario/cluster_parsing.h"
#include "runtime/scenario/json_fields.h"
#include "runtime/scenario/link_presets.h"
#include "runtime/scenario/units.h"
#include "runtime/count_text.h"

namespace pstwin::scenario_sections {

using namespace scenario_json;

namespace {

constexpr std::uint64_t kMaxIterations = 1'000'000'000;
constexpr std::uint64_t kMaxBatchSize = 1'000'000'000;


/// A data path as written, or rewritten against `base_dir` when only that one exists. Running
/// `pstwin run scenarios/x.json` from the repository root and from scenarios/ then both work;
/// a path that exists nowhere is kept so the data loader names it as the user wrote it.
std::string resolve_path(const std::string& path, const std::string& base_dir) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  std::error_code ec;
  if (p.is_absolute() || fs::exists(p, ec)) return path;
  const fs::path alt = fs::path(base_dir) / p;
  if (fs::exists(alt, ec)) return alt.lexically_normal().string();
  return path;
}

}  // namespace

DataSection parse_data(const json& v, const std::string& ptr, const std::string& base_dir) {
  const Object o(v, ptr, {"format", "train", "test", "train_labels", "test_labels", "partition", "train_eval_rows",
                          "file", "test_fraction"});
  DataSection d;
  d.format = read_choice(o.at("format"), o.ptr("format"), {"libsvm", "idx", "ratings"});
  if (d.format == "ratings") {
    // One ratings CSV, split per rating into train and test with the scenario's seed.
    const std::string msg = "format \"ratings\" reads one \"file\" and splits it by \"test_fraction\"";
    for (const char* key : {"train", "test", "train_labels", "test_labels"}) o.forbid(key, msg);
    d.file = resolve_path(read_string(o.at("file"), o.ptr("file")), base_dir);
    if (o.has("test_fraction"))
      d.test_fraction = read_number(o.at("test_fraction"), o.ptr("test_fraction"),
                                    {.min = 0.0, .max = 1.0, .min_open = true, .max_open = true});
  } else {
    const std::string msg = "only allowed when data.format is \"ratings\"";
    o.forbid("file", msg);
    o.forbid("test_fraction", msg);
    d.train = resolve_path(read_string(o.at("train"), o.ptr("train")), base_dir);
    d.test = resolve_path(read_string(o.at("test"), o.ptr("test")), base_dir);
  }
  if (d.format == "idx") {
    // IDX keeps images and labels in separate files; both splits need both.
    d.train_labels = resolve_path(read_string(o.at("train_labels"), o.ptr("train_labels")), base_dir);
    d.test_labels = resolve_path(read_string(o.at("test_labels"), o.ptr("test_labels")), base_dir);
  } else {
    const std::string msg = "labels files are for format \"idx\" only; libsvm keeps labels in each line";
    o.forbid("train_labels", msg);
    o.forbid("test_labels", msg);
  }
  if (o.has("partition")) d.partition = read_choice(o.at("partition"), o.ptr("partition"), {"contiguous", "shuffled"});
  if (o.has("train_eval_rows")) d.train_eval_rows = read_uint(o.at("train_eval_rows"), o.ptr("train_eval_rows"), 1);
  return d;
}

ModelSection parse_model(const json& v, const std::string& ptr) {
  const Object o(v, ptr, {"type", "l2", "parameters", "flops_per_iteration", "bytes_per_iteration", "hidden",
                          "rank", "init_scale"});
  ModelSection m;
  m.type = read_choice(o.at("type"), o.ptr("type"), {"logistic", "softmax", "mlp", "mf", "synthetic"});
  if (o.has("l2")) m.l2 = read_float32(o.at("l2"), o.ptr("l2"), {.min = 0.0});
  if (m.type == "mf") {
    // Matrix factorisation: factor length, and the spread of the random initial factors.
    m.rank = read_uint(o.at("rank"), o.ptr("rank"), 1, 4096);
    // Factors start as init_scale * N(0, 1) in float32; the largest draw must stay finite.
    if (o.has("init_scale"))
      m.init_scale = read_float32(o.at("init_scale"), o.ptr("init_scale"),
                                  {.min = 0.0, .max = std::numeric_limits<float>::max() / Rng::kNormalMax});
  } else {
    o.forbid("rank", "only allowed when model.type is \"mf\"");
    o.forbid("init_scale", "only allowed when model.type is \"mf\"");
  }
  if (m.type == "mlp") {
    // Hidden layer widths, input side first: a non-empty list of positive integers.
    constexpr std::uint64_t kMaxWidth = std::uint64_t{1} << 20;
    const json& hidden = read_array(o.at("hidden"), o.ptr("hidden"), false);
    for (std::size_t i = 0; i < hidden.size(); ++i)
      m.hidden.push_back(static_cast<std::uint32_t>(
          read_uint(hidden[i], child_pointer(o.ptr("hidden"), std::to_string(i)), 1, kMaxWidth)));
  } else {
    o.forbid("hidden", "only allowed when model.type is \"mlp\"");
  }
  if (m.type == "synthetic") {
    m.parameters = read_uint(o.at("parameters"), o.ptr("parameters"), 1);
    if (o.has("flops_per_iteration"))
      m.flops_per_iteration = read_number(o.at("flops_per_iteration"), o.ptr("flops_per_iteration"), {.min = 0.0});
    if (o.has("bytes_per_iteration"))
      m.bytes_per_iteration = read_number(o.at("bytes_per_iteration"), o.ptr("bytes_per_iteration"), {.min = 0.0});
  } else {
    // A real model's size and cost follow from the data; a stated one would be silently ignored.
    for (const char* key : {"parameters", "flops_per_iteration", "bytes_per_iteration"})
      o.forbid(key, std::string("only allowed when model.type is \"synthetic\""));
  }
  return m;
}

TrainingSection parse_training(const json& v, const std::string& ptr, bool synthetic) {
  const Object o(v, ptr,
                 {"iterations", "batch_size", "learning_rate", "optimizer", "momentum", "beta1", "beta2", "epsilon",
                  "eval_every", "target_metric", "device", "epochs", "stop_at_target", "time_budget"});
  TrainingSection t;
  // How long each worker trains: a number of clocks, or an amount of data (epochs), not both.
  if (o.has("epochs")) {
    o.forbid("iterations", "give \"iterations\" or \"epochs\", not both");
    if (synthetic)
      throw ScenarioError(o.ptr("epochs"), "the synthetic model has no data to count epochs of; give \"iterations\"");
    t.epochs = read_number(o.at("epochs"), o.ptr("epochs"), {.min = 0.0, .min_open = true});
  } else {
    if (!o.has("iterations"))
      throw ScenarioError(o.ptr("iterations"), "missing required key \"iterations\" (or \"epochs\")");
    // Clocks are signed 64-bit on the wire; a billion iterations is far past any real job.
    t.iterations = read_uint(o.at("iterations"), o.ptr("iterations"), 1, kMaxIterations);
  }
  // A synthetic model has no examples and no math, so these only matter for real models.
  if (!synthetic || o.has("batch_size"))
    t.batch_size = read_uint(o.at("batch_size"), o.ptr("batch_size"), 1, kMaxBatchSize);
  if (!synthetic || o.has("learning_rate"))
    t.learning_rate = read_float32(o.at("learning_rate"), o.ptr("learning_rate"), {.min = 0.0, .min_open = true});
  if (o.has("optimizer"))
    t.optimizer = read_choice(o.at("optimizer"), o.ptr("optimizer"), {"sgd", "momentum", "adagrad", "adam"});
  if (o.has("momentum")) {
    if (t.optimizer != "momentum")
      throw ScenarioError(o.ptr("momentum"), "only allowed when training.optimizer is \"momentum\"");
    t.momentum = read_float32(o.at("momentum"), o.ptr("momentum"), {.min = 0.0, .max = 1.0, .max_open = true});
  }
  // Adam's moment decays, and the epsilon of the adaptive optimizers (ServerOptimizer).
  for (const auto& [key, field] : {std::pair{"beta1", &t.beta1}, std::pair{"beta2", &t.beta2}}) {
    if (!o.has(key)) continue;
    if (t.optimizer != "adam")
      throw ScenarioError(o.ptr(key), "only allowed when training.optimizer is \"adam\"");
    *field = read_float32(o.at(key), o.ptr(key), {.min = 0.0, .max = 1.0, .max_open = true});
  }
  if (o.has("epsilon")) {
    if (t.optimizer != "adagrad" && t.optimizer != "adam")
      throw ScenarioError(o.ptr("epsilon"), "only allowed when training.optimizer is \"adagrad\" or \"adam\"");
    t.epsilon = read_float32(o.at("epsilon"), o.ptr("epsilon"), {.min = 0.0, .min_open = true});
  }
  if (o.has("eval_every"))
    t.eval_every = read_uint(o.at("eval_every"), o.ptr("eval_every"), 1, kMaxIterations);
  if (o.has("target_metric")) t.target_metric = read_number(o.at("target_metric"), o.ptr("target_metric"));
  if (o.has("stop_at_target")) {
    if (!o.at("stop_at_target").is_boolean())
      throw ScenarioError(o.ptr("stop_at_target"), "expected true or false, got " + describe(o.at("stop_at_target")));
    t.stop_at_target = o.at("stop_at_target").get<bool>();
    if (t.stop_at_target && !t.target_metric)
      throw ScenarioError(o.ptr("stop_at_target"), "needs training.target_metric, the value to stop at");
    if (t.stop_at_target && synthetic)
      throw ScenarioError(o.ptr("stop_at_target"), "the synthetic model has no metric to reach");
  }
  if (o.has("time_budget"))
    t.time_budget_s = read_unit(o.at("time_budget"), o.ptr("time_budget"), parse_duration_s, "60s", true);
  // Where real runs (launch, node) compute; simulate ignores it (see TrainingSection::device).
  if (o.has("device")) t.device = read_choice(o.at("device"), o.ptr("device"), {"auto", "cpu", "cuda"});
  return t;
}

ClusterSection parse_cluster(const json& v, const std::string& ptr) {
  const Object o(v, ptr, {"workers", "servers", "worker", "server", "workers_per_host", "intra_host", "topology",
                          "server_placement", "overrides", "cpu", "include", "calibrated"});
  // Node ids are 32-bit; a million of each kind is far past any cluster we can simulate.
  constexpr std::uint64_t kMaxNodes = 1'000'000;
  ClusterSection c;
  c.workers = static_cast<std::uint32_t>(read_uint(o.at("workers"), o.ptr("workers"), 1, kMaxNodes));
  c.servers = static_cast<std::uint32_t>(read_uint(o.at("servers"), o.ptr("servers"), 1, kMaxNodes));
  if (o.has("workers_per_host")) {
    c.workers_per_host =
        static_cast<std::uint32_t>(read_uint(o.at("workers_per_host"), o.ptr("workers_per_host"), 1, kMaxNodes));
    if (c.workers % c.workers_per_host != 0)
      throw ScenarioError(o.ptr("workers_per_host"),
                          std::to_string(c.workers_per_host) + " workers per host do not divide the " +
                              count_text(c.workers, "worker") + " into whole hosts");
  }
  // Hardware per node: one group, or a list of groups; then the per-node overrides.
  c.worker_nodes = parse_host_groups(o.at("worker"), o.ptr("worker"), c.workers, c.workers_per_host, c.worker);
  c.server_nodes = parse_host_groups(o.at("server"), o.ptr("server"), c.servers, 1, c.server);
  // Where servers sit first: it decides how many machines the topology must hold, and whether a
  // server has a link of its own to override.
  if (o.has("server_placement"))
    c.server_placement = parse_server_placement(o.at("server_placement"), o.ptr("server_placement"), c);
  if (o.has("overrides")) apply_overrides(o.at("overrides"), o.ptr("overrides"), c);
  // "include" is listed above for the error's list of keys; parse_one_scenario resolved it
  // before this point (cluster_include.h). Where an included calibration's figures come from:
  // checked, not used.
  if (o.has("calibrated")) check_calibration_record(o.at("calibrated"), o.ptr("calibrated"));
  if (c.workers_per_host > 1) {
    if (!o.has("intra_host"))
      throw ScenarioError(o.ptr("intra_host"),
                          "required when workers_per_host > 1: the link between the workers of one host, "
                          "a preset (" + intra_host_link_preset_names() + ") or {\"bandwidth\", \"latency\"}");
    c.intra_host = parse_intra_host_link(o.at("intra_host"), o.ptr("intra_host"));
  } else {
    o.forbid("intra_host", "only meaningful when workers_per_host > 1 (workers sharing a host)");
  }
  if (o.has("topology")) c.topology = parse_topology(o.at("topology"), o.ptr("topology"), c);
  if (o.has("cpu")) c.cpu = parse_cpu(o.at("cpu"), o.ptr("cpu"));
  if (c.server_placement == ServerPlacement::kSpread && c.topology.kind == TopologySpec::Kind::kStar)
    throw ScenarioError(o.ptr("server_placement"), "\"spread\" places servers among the workers' racks or leaves; "
                                                   "in a star every machine is one hop from the switch alike: use "
                                                   "\"separate\" or a topology");
  return c;
}

}  // namespace pstwin::scenario_sections
