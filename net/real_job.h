// Running a job on real resources: every node as a thread of this process (inproc), or one node
// of a ZeroMQ job in this process. Both write the same outputs as the simulation.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "net/zmq_env.h"
#include "runtime/job_setup.h"
#include "runtime/scenario/scenario.h"

namespace pstwin::net {

/// Runs `variant` with every node as a thread, messages through InprocNetwork, and writes
/// DIR/{metrics.csv,events.jsonl,summary.json} (time_s is wall-clock seconds). Returns the
/// summary. Throws std::runtime_error naming the node when a role fails (the others are stopped
/// by their stall timeout of stall_timeout_s). Every role computes with make_backend(device)
/// (kernels/select_backend.h): "cpu" or "cuda" (resolve "auto" once beforehand, so that all
/// roles agree); a GPU failure, out of memory included, fails the role with CUDA's message.
/// With fault tolerance, every node's environment sends heartbeats (a thread per node); with
/// checkpoints, they go to DIR/checkpoints. `resume_from` (a checkpoint folder; empty: none)
/// starts the job from its newest complete checkpoint (load_resume_point; CheckpointError when
/// there is none that fits). Failure injection is not done in process: see launch over ZeroMQ.
/// `stop` (null: none; not owned), once requested (a signal, cli/stop_signals.h), stops the job
/// as a ZeroMQ scheduler's StopRequest does: the scheduler writes a "job_stopped" event, the rows
/// so far and a summary with completed false and why, and this throws JobStopped naming it.
nlohmann::json run_inproc_job(const Scenario& scenario, const ConsistencyVariant& variant,
                              const PreparedTraining& prepared, const std::string& dir,
                              double stall_timeout_s = 300.0, const std::string& device = "cpu",
                              const std::string& resume_from = "", const StopRequest* stop = nullptr);

/// How one process takes part in a ZeroMQ job.
struct NodeOptions {
  std::string role;                ///< "scheduler", "server" or "worker"
  std::string scheduler_endpoint;  ///< "tcp://HOST:PORT": where the scheduler listens
  std::string bind_host;           ///< where this node listens (the scheduler: empty for scheduler_endpoint's host)
  std::string advertise_host;      ///< host name or address other nodes dial this node at
  std::string out_dir;             ///< scheduler: where the outputs go
  ZmqOptions zmq;                  ///< keys, limits (bind_endpoint is set from the fields above)
  double connect_timeout_s = 30.0;  ///< rendezvous must finish within this
  double stall_timeout_s = 300.0;   ///< a role waiting this long for anything fails
  std::string device = "cpu";       ///< the role's kernels: make_backend(device), "cpu" or "cuda"
  int index = -1;                   ///< server or worker index to register as (-1: any free one)
  bool rejoin = false;              ///< a restarted node joining a running job (needs index)
  bool join = false;                ///< a server declared joining ({"join": "server"}) joining the running job (needs index)
  std::string checkpoint_dir;       ///< servers and scheduler: where checkpoints go (empty: none)
  std::string resume_from;          ///< every node: resume from this checkpoint folder
  bool quiet = false;               ///< no line about the data read
  double progress_interval_s = 5.0;  ///< a progress line on stderr this often (0: none)
  /// Scheduler: called with the resolved endpoint once it listens (before registration).
  std::function<void(const std::string&)> on_listening;
  /// Scheduler: serve live metrics at this "HOST:PORT" (net/live_metrics.h; empty: none) ...
  std::string metrics_address;
  /// ... and call this with their URL once the server listens (before registration).
  std::function<void(const std::string&)> on_metrics;
  /// Server or worker: whether a stop signal reached the process (cli/node_stop_grace.h; empty:
  /// never). Then what it still has queued for the other servers and workers once its role
  /// returned gets 0.5 s to go out, not the linger time: the job is over, and a peer that stopped
  /// first takes nothing more (its last spans to the scheduler still get the linger time).
  std::function<bool()> stopped;
};

/// Where a node with `options` listens, "tcp://HOST:PORT": the scheduler at scheduler_endpoint, or
/// at its port on bind_host when that is set; a server or worker on bind_host, at a free port
/// ("*"). Throws std::invalid_argument when scheduler_endpoint does not parse (parse_tcp_endpoint).
std::string listen_endpoint(const NodeOptions& options);

/// Runs one node of `variant` over ZeroMQ in this process until the job ends. A server or worker
/// registers first, with the job's fingerprint (net/job_fingerprint.h), then reads its data (a
/// server: none; a worker: the training set; see prepare_node_data) and builds the model from the
/// shape in the scheduler's address book. The scheduler reads everything while the others read
/// theirs, writes the outputs into out_dir (plus address_book.json) and returns the summary;
/// when the job does not start (a timeout, bad data), it still writes a summary with completed
/// false and the reason, then throws. Stopped from outside (options.zmq.stop, e.g. a signal),
/// the scheduler still writes what it has (rows and events so far, a "job_stopped" event, a
/// summary with completed false and why) and throws JobStopped. Other roles return null. Throws std::runtime_error with a
/// clear message on rendezvous timeouts, a busy address or a failed role; RegistrationRefused
/// when the scheduler turns this node away; DataError or ScenarioError for bad data.
nlohmann::json run_zmq_node(const Scenario& scenario, const ConsistencyVariant& variant,
                            const NodeOptions& options);

}  // namespace pstwin::net
