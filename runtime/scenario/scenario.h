// Scenario: a what-if experiment as read from JSON, validated (DESIGN.md, "Scenarios").
#pragma once

#include <cstdint>
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/device_spec.h"
#include "runtime/errors.h"
#include "runtime/consistency/controller.h"
#include "runtime/key_placement.h"
#include "runtime/model/model_section.h"
#include "runtime/roles/compression_config.h"
#include "runtime/scenario/simulation_section.h"

namespace pstwin {

/// The top-level keys of a scenario file. A file with "variants" may have each of them too
/// (runtime/scenario/variant_overrides.cc): one list, so a new section reaches both parsers.
inline constexpr std::array<std::string_view, 14> kScenarioSections = {
    "name", "seed", "data", "model", "training", "consistency", "cluster",
    "stragglers", "fault_tolerance", "failures", "partition", "output", "simulation", "compression"};

/// "data": where examples come from. Required unless the model is "synthetic".
struct DataSection {
  std::string format;        ///< "libsvm", "idx" or "ratings"
  std::string file;          ///< ratings only: the CSV file, split into train and test
  double test_fraction = 0.1;  ///< ratings only: share of the ratings held out, in (0, 1)
  std::string train;         ///< libsvm: file; idx: images file
  std::string train_labels;  ///< idx only: labels file
  std::string test;
  std::string test_labels;   ///< idx only
  std::string partition = "contiguous";  ///< "contiguous" or "shuffled" (seeded)
  std::uint64_t train_eval_rows = 10000;  ///< training rows (seeded sample) for train_loss
};

/// "training".
struct TrainingSection {
  /// Clocks per worker. With `epochs` it is 0 here, and iterations_per_worker gives the number
  /// once the data is read.
  std::uint64_t iterations = 0;
  /// "epochs": passes over the training set in all, instead of "iterations" (exactly one of them
  /// is given): a fixed amount of data whatever the number of workers (iterations_per_worker).
  std::optional<double> epochs;
  std::uint64_t batch_size = 0;   ///< examples per worker per iteration
  double learning_rate = 0.0;
  std::string optimizer = "sgd";  ///< "sgd", "momentum", "adagrad" or "adam" (server-side)
  double momentum = 0.9;
  double beta1 = 0.9;             ///< adam only, in [0, 1)
  double beta2 = 0.999;           ///< adam only, in [0, 1)
  double epsilon = 1e-8;          ///< adagrad and adam, > 0
  std::uint64_t eval_every = 10;  ///< evaluate each time the global clock passes a multiple
  std::optional<double> target_metric;  ///< for time-to-target
  /// "stop_at_target": end the run at the first evaluation at or past target_metric (which it
  /// needs); the summary's stop_reason says "target_metric".
  bool stop_at_target = false;
  /// "time_budget" (a duration): end the run at the first evaluation at or past this many
  /// seconds of its clock: simulated seconds under simulate, wall seconds under launch and node.
  std::optional<double> time_budget_s;
  /// Where the roles of a real run (launch, node) compute: "cpu", "cuda" (a GPU, else the run
  /// fails with exit status 2 naming why) or "auto" (the GPU when one is usable, else the CPU).
  /// --device overrides it. simulate ignores it: simulated time comes from the cluster's device
  /// specs, and the math runs on the CPU unless simulate's own --device says otherwise.
  std::string device = "cpu";
};

/// One run of the comparison: an entry of the "consistency" shorthand, or of "variants".
struct ConsistencyVariant {
  std::string name;  ///< unique; default "bsp", "asp", "ssp3", ...; used as the output folder
  ConsistencyConfig config;
};

/// A network link: a machine's NIC, a rack's uplink, a fabric link.
struct LinkSpec {
  double bandwidth_Bps = 0.0;  ///< bytes per second, each direction
  double latency_s = 0.0;
};

/// "messaging": the host CPU time a node pays for each message it sends (encoding, checksum,
/// encryption, handing it to the transport) and receives (the same checks, decryption,
/// decoding): per_message + bytes x per_byte seconds, bytes being the encoded size. All 0 when
/// absent, which is the model without these costs (DESIGN.md, "Cost model").
/// `io_share` (0 to 1, default 0) is the part of each of those costs that the node's transport
/// I/O thread spends (ZeroMQ's), concurrently with the role but on the same cores; the rest is
/// spent by the role itself, serially (DESIGN.md, "Cost model").
struct MessagingSpec {
  double send_per_message_s = 0.0;
  double send_per_byte_s = 0.0;
  double receive_per_message_s = 0.0;
  double receive_per_byte_s = 0.0;
  double io_share = 0.0;

  /// Seconds of host CPU to send / receive one message of `bytes` encoded bytes (both threads).
  double send_s(double bytes) const { return send_per_message_s + bytes * send_per_byte_s; }
  double receive_s(double bytes) const { return receive_per_message_s + bytes * receive_per_byte_s; }
  /// The role's part of `seconds` of messaging cost: all of it when io_share is 0.
  double role_part(double seconds) const { return (1.0 - io_share) * seconds; }
  /// The I/O thread's part of `seconds`: 0 when io_share is 0.
  double io_part(double seconds) const { return io_share * seconds; }
  /// Whether every figure is 0 (no messaging cost at all).
  bool free() const {
    return send_per_message_s == 0 && send_per_byte_s == 0 && receive_per_message_s == 0 && receive_per_byte_s == 0;
  }
};

/// A group of hosts with the same hardware.
struct HostGroupSpec {
  DeviceSpec device;
  LinkSpec link;
  MessagingSpec messaging;
};

/// "cluster.cpu": the CPU cores the job's nodes run on (DESIGN.md, "Cost model"). Under it,
/// host work (server work, messaging, the scheduler's evaluation, and kernels of a device that
/// is not a GPU) runs on a machine's cores, shared with the other nodes of that machine.
struct CpuSpec {
  enum class Machines {
    kOne,      ///< "one": every node of the job on one machine with `cores` cores
    kPerHost,  ///< "per_host": each machine (worker host, server, scheduler) has `cores` cores
  };
  std::uint32_t cores = 1;
  Machines machines = Machines::kOne;
};

/// "cluster.topology": how the machines are wired (README, "Topologies"). Bandwidths are bytes per
/// second in each direction.
struct TopologySpec {
  enum class Kind { kStar, kRacks, kFatTree, kDragonfly, kTorus };
  Kind kind = Kind::kStar;
  /// racks: worker machines per rack (the last rack may hold fewer), and each rack's
  /// top-of-rack switch link to the core switch (its uplink).
  std::uint32_t hosts_per_rack = 0;
  LinkSpec uplink;
  /// fat_tree: SimGrid's FatTreeParams (levels = down.size(); leaves = product of down).
  std::vector<std::uint32_t> down, up, link_count;
  /// dragonfly: SimGrid's DragonflyParams: {count, links} of groups, of chassis per group and of
  /// routers per chassis, then machines per router.
  std::uint32_t groups = 0, group_links = 0, chassis = 0, chassis_links = 0, routers = 0,
                router_links = 0, nodes_per_router = 0;
  /// torus: the size of each dimension (leaves = their product).
  std::vector<std::uint32_t> dimensions;
  /// fat_tree, dragonfly, torus: each link of the switch fabric (SimGrid gives them all alike).
  LinkSpec fabric;

  /// Machines the fabric has room for: fat_tree, dragonfly and torus leaves; 0 (no limit) for
  /// star and racks.
  std::uint64_t leaves() const;
  /// "star", "racks", "fat_tree", "dragonfly" or "torus".
  const char* name() const;
};

/// "cluster.server_placement": where the servers sit.
enum class ServerPlacement {
  kSeparate,   ///< "separate" (default): machines of their own, after the workers' (racks: racks of their own)
  kSpread,     ///< "spread": among the workers' machines (racks: server i in rack i mod racks)
  kColocated,  ///< "colocated": server i on worker machine i, sharing its NIC
};

/// "cluster": the machines of the job and how they are wired.
struct ClusterSection {
  std::uint32_t workers = 0;
  std::uint32_t servers = 0;
  /// The worker and server hardware when it is one group ("worker": {...}); with a list of
  /// groups, the first group's. Per node: worker_spec, server_spec.
  HostGroupSpec worker;
  HostGroupSpec server;     ///< also used for the scheduler
  /// Per node, after groups and "overrides": worker_nodes[i] is worker i's hardware. Empty in a
  /// cluster built by hand, where `worker` and `server` apply to every node.
  std::vector<HostGroupSpec> worker_nodes;
  std::vector<HostGroupSpec> server_nodes;
  TopologySpec topology;
  ServerPlacement server_placement = ServerPlacement::kSeparate;
  /// "workers_per_host": workers (GPUs) that share one machine and its network link
  /// (worker.link). Workers 0..k-1 are host 0, k..2k-1 host 1, and so on; it divides `workers`.
  std::uint32_t workers_per_host = 1;
  /// "intra_host": the link between the workers of one host (NVLink, PCIe); given exactly when
  /// workers_per_host > 1 (a preset name from link_presets.h or {"bandwidth", "latency"}).
  std::optional<LinkSpec> intra_host;
  /// "cpu": the cores host work shares; absent, host work other than the devices' is free and
  /// each node computes on a device of its own (the model before "cpu" existed).
  std::optional<CpuSpec> cpu;

  /// Number of worker hosts: workers / workers_per_host.
  std::uint32_t worker_hosts() const { return workers / workers_per_host; }
  /// The host (0-based) that worker `w` sits on.
  std::uint32_t host_of_worker(std::uint32_t w) const { return w / workers_per_host; }
  /// Worker w's and server i's hardware. REQUIRES w < workers, i < servers.
  const HostGroupSpec& worker_spec(std::uint32_t w) const { return worker_nodes.empty() ? worker : worker_nodes[w]; }
  const HostGroupSpec& server_spec(std::uint32_t i) const { return server_nodes.empty() ? server : server_nodes[i]; }
};

/// One entry of "stragglers".
struct StragglerSpec {
  enum class Kind {
    kSlowWorkers,  ///< (a) "slow": listed workers run `factor` times slower in [start_s, end_s)
    kTransient,    ///< (b) "transient": each iteration, with `probability`, a worker is `factor`
                   ///<     times slower for `iterations` iterations
    kLognormal,    ///< (c) "lognormal": each iteration's compute is multiplied by
                   ///<     max(1, exp(N(mu, sigma^2)))
  };
  Kind kind = Kind::kSlowWorkers;
  std::vector<std::uint32_t> workers;  ///< which workers (0-based); empty = all
  double factor = 1.0;                 ///< >= 1
  double start_s = 0.0;
  double end_s = 0.0;                  ///< +inf when "end" is absent
  double probability = 0.0;            ///< transient, in [0, 1]
  std::uint64_t iterations = 1;        ///< transient duration
  double mu = 0.0;                     ///< lognormal
  double sigma = 0.0;                  ///< lognormal, >= 0
};

/// "fault_tolerance": replication, failure detection and checkpoints. Durations in seconds,
/// bandwidths in bytes per second.
struct FaultToleranceSection {
  std::uint32_t replication = 1;  ///< servers holding each key range (primary + backups), 1..cluster.servers
  double heartbeat_interval_s = 0.2;  ///< "heartbeat_interval": how often every node tells the scheduler it lives, > 0
  double heartbeat_timeout_s = 1.0;   ///< "heartbeat_timeout": silence after which the scheduler declares a
                                      ///< node dead; > heartbeat_interval_s
  std::uint64_t checkpoint_every_clocks = 0;  ///< "checkpoint_every_clocks": servers checkpoint when the shard
                                              ///< clock reaches a multiple; 0 = off
  double checkpoint_every_s = 0.0;  ///< "checkpoint_every": also at least this often (a duration string); 0 = off
  double checkpoint_bandwidth_Bps = 1e9;  ///< "checkpoint_bandwidth": simulated storage write speed ("2GBps"), > 0
  bool enabled = false;  ///< the section is present or "failures" is non-empty: heartbeats run
};

/// A node of the job as scenarios name it: "scheduler", "server:<i>", "worker:<i>" (0-based).
struct NodeRef {
  enum class Role { kScheduler, kServer, kWorker };
  Role role = Role::kScheduler;
  std::uint32_t index = 0;  ///< within the role; 0 for the scheduler
  /// The scenario spelling: "scheduler", "server:1", "worker:3".
  std::string text() const;
  friend bool operator==(const NodeRef&, const NodeRef&) = default;
};

/// One entry of "failures". Times are seconds from the start of the run (simulated or wall).
struct FailureSpec {
  enum class Kind {
    kNode,    ///< {"node": "server:1", "at": "2s", "recover_at": "5s"}: the node's host fails at `at` (its
              ///< process is killed) and, when recover_at is given, restarts then
    kLink,    ///< {"link": "worker:3", "at": "1s", "recover_at": "1.5s"}: the node's network link is down in
              ///< [at, recover_at) (forever without recover_at); messages sent meanwhile are lost
    kRandom,  ///< {"random": "workers"|"servers", "mtbf": "60s", "repair": "5s", "nodes": [0, 2]}: each listed
              ///< node (all when "nodes" is absent) fails after Exponential(mtbf) up-times, and restarts
              ///< `repair` later when given (else stays down)
    kJoin,    ///< {"join": "server", "at": "2s"}: a server absent at the start joins the running job at `at`
              ///< (simulate only; partition "consistent_hash"). With J joins, servers S-J..S-1 are the
              ///< joiners, in the order of their times: `target` names each
  };
  Kind kind = Kind::kNode;
  NodeRef target;                      ///< kNode, kLink, kJoin
  double at_s = 0.0;                   ///< kNode, kLink, kJoin: >= 0
  std::optional<double> recover_at_s;  ///< kNode, kLink: > at_s when present; never for the scheduler's node
  NodeRef::Role group = NodeRef::Role::kWorker;  ///< kRandom: kWorker or kServer
  std::vector<std::uint32_t> nodes;    ///< kRandom: distinct indices in the group; empty = all
  double mtbf_s = 0.0;                 ///< kRandom: mean time between failures, > 0
  std::optional<double> repair_s;      ///< kRandom: down time before the restart, > 0 when present
};

/// "output".
struct OutputSection {
  std::string dir;  ///< default "runs/<name>"
};

/// A whole validated scenario.
struct Scenario {
  std::string name;
  std::uint64_t seed = 0;
  std::optional<DataSection> data;
  ModelSection model;
  TrainingSection training;
  std::vector<ConsistencyVariant> consistency;
  ClusterSection cluster;
  std::vector<StragglerSpec> stragglers;
  FaultToleranceSection fault_tolerance;
  std::vector<FailureSpec> failures;
  PartitionSpec partition;  ///< "partition" (default "range"); no block owners yet
  OutputSection output;
  CompressionConfig compression;  ///< "compression" (runtime/scenario/compression_section.h); seed unset here
  SimulationSection simulation;  ///< "simulation": read by simulate only
  /// The JSON it was parsed from, after --set overrides. For a variant's own scenario
  /// (scenario_for_variant) of "variants": the standalone scenario the variant resolves to.
  nlohmann::json source;
  /// Variant i (consistency[i]) as a scenario of its own, fully validated, whose `consistency`
  /// holds that variant alone. Empty inside those. Read it through scenario_for_variant.
  std::vector<Scenario> variant_scenarios;
};

/// The scenario that variant `i` (s.consistency[i]) runs: the base with the variant's overrides,
/// validated when `s` was parsed; its `consistency` holds that variant alone. For the
/// "consistency" shorthand that is the base scenario itself with one consistency entry. A
/// scenario built by hand (no variant_scenarios) gives a copy of `s` with consistency[i] alone.
/// Throws std::out_of_range when i >= s.consistency.size().
Scenario scenario_for_variant(const Scenario& s, std::size_t i);

/// Section `key` of the document `s` was parsed from (s.source), or null when it has none: for
/// telling whether two runs read the same data or train the same model.
nlohmann::json source_section(const Scenario& s, const std::string& key);

/// Throws `e`, found by a check of variant `i`'s scenario (scenario_for_variant) made after
/// parsing (against its data or its model's size), where a parse error of the variant would be:
/// at the deepest pointer of the variant's "set" covering e's pointer
/// ("/variants/1/set/~1cluster~1servers"), at its own consistency, else at "/variants/<i>" naming
/// the resolved scenario's pointer. `e` unchanged when `s` has no "variants" (its runs differ
/// in consistency alone) or the variant overrides nothing but its consistency (what failed is
/// the base's). Always throws ScenarioError.
[[noreturn]] void throw_in_variant(const ScenarioError& e, const Scenario& s, std::size_t i);

/// Clocks each worker runs: training.iterations, or with training.epochs,
/// ceil(epochs * train_rows / (workers * batch_size)), so every run of a scenario sees
/// epochs * train_rows examples or up to workers * batch_size - 1 more, whatever its workers.
/// REQUIRES train_rows > 0 when epochs is given. Throws ScenarioError at /training/epochs when the
/// result exceeds a billion iterations.
std::uint64_t iterations_per_worker(const Scenario& s, std::uint64_t train_rows);

/// Validates `doc` strictly and returns the scenario. The runs to compare are either the
/// "consistency" list (each entry a run of the base scenario; the shorthand) or "variants", each
/// {"name", "consistency" (an object replacing the base's), "set" {"/json/pointer": value}}
/// overriding the base (whose "consistency" is then one object, {"mode": "bsp"} when absent);
/// a null value removes the key (its default applies, or its optional section is off).
/// Each variant is validated as a whole scenario; its errors name the pointer inside the variant
/// ("/variants/2/set/~1training~1learning_rate", "/variants/0/consistency/mode"), or the variant
/// ("/variants/1") naming the resolved scenario's pointer when the base and the overrides only
/// clash together. Throws ScenarioError naming the JSON
/// pointer and what was expected for an unknown key, a missing required key, a wrong type or an
/// impossible value (e.g. zero workers, staleness < 0, a probability outside [0, 1], an unknown
/// device preset, a unit it cannot parse, backup_workers >= workers, replication > servers, a
/// failure of a node the cluster does not have). Relative data paths are resolved against
/// `base_dir` (the scenario file's folder) when they do not exist as given.
Scenario parse_scenario(const nlohmann::json& doc, const std::string& base_dir = ".");

/// Reads the file at `path`, applies each "/json/pointer=value" override (value parsed as JSON,
/// else taken as a string; the pointer's parent must exist), then parse_scenario. Throws
/// ScenarioError for unreadable files and JSON syntax errors too (pointer "" and the line), and
/// at the value's pointer for a key given twice in one object or a number beyond a double's
/// range, in the file or in an override (parse_strict_json).
Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides = {});

/// load_scenario on the file's text already in memory: parses `text` as JSON (a syntax error, or a
/// number too large for a double, throws ScenarioError with pointer "" naming `source` and, for
/// syntax, the line), applies the overrides, then
/// parse_scenario with `base_dir`. load_scenario reads the file and calls this.
Scenario parse_scenario_text(std::string_view text, const std::string& source,
                             const std::vector<std::string>& overrides = {},
                             const std::string& base_dir = ".");
}  // namespace pstwin
