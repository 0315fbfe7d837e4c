// What `pstwin calibrate` writes: the cluster section a scenario includes ("cluster": {"include":
// "calibrated.json"}) and calibration.csv beside it, every raw measurement the fits were made from.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/calibrate_kernels.h"
#include "cli/calibrate_transports.h"
#include "cli/calibration_fit.h"
#include "kernels/device_spec.h"

namespace pstwin::cli {

/// The fitted model of one transport. A message of B bytes takes, one way,
///   send_cpu(B) + link + receive_cpu(B),  link = latency_s + B / bandwidth_Bps,
/// where the CPU terms are what the sending and the receiving node spend on it (intercept: s per
/// message; slope: s per byte) and the link is what the wall-clock time leaves over. On loopback
/// the "wire" is the CPU, so the link is small; `whole_*` is the line through the wall-clock
/// time itself, for a model that charges no host costs.
struct TransportFit {
  std::string transport;
  double latency_s = 0;
  double bandwidth_Bps = 0;
  LineFit send_cpu;
  LineFit receive_cpu;
  double whole_latency_s = 0;
  double whole_bandwidth_Bps = 0;
};

/// Fits `samples` (one transport's) as TransportFit with fit_ends: rates (bandwidth, CPU per
/// byte) from the messages of 1 MB and more, fixed costs (latency, CPU per message) from those of
/// 1 KB and less. The link is fitted to each size's median time less its median CPU times (at
/// least 0). No bandwidth is above `memcpy_Bps`: a time that does not grow with size (slope 0:
/// the CPU terms explain it all, or noise) gets that rate, as no transfer copies faster.
/// REQUIRES samples non-empty, memcpy_Bps > 0.
TransportFit fit_transport(const std::vector<TransportSample>& samples, double memcpy_Bps);

/// Where the figures come from ("calibrated" in the file).
struct CalibrationRecord {
  std::string machine;         ///< host name
  std::string date;            ///< UTC, ISO 8601
  std::string pstwin_version;
  std::string transport;       ///< the one whose link and messaging the file holds
  std::string device;          ///< the kernels' device, as make_backend described it
  unsigned cores = 1;
  double memcpy_Bps = 0;
  bool quick = false;
  /// With --hostfile: the two machines the transport was measured between (echo peer, driver);
  /// empty: over loopback on `machine`.
  std::vector<std::string> transport_hosts;
};

/// The devices the file gives each host group, each fitted (fit_roofline) to timed runs of what
/// that group's device prices: a worker's, to its gradient steps; a server's, which prices the
/// server's aggregation and optimizer steps and the scheduler's evaluation (the scheduler is
/// placed as a server), to the evaluations. One roofline through both misprices one of them:
/// the Cost formulas count an exp or log as kTranscendentalFlops, and the forward pass, which
/// holds all of them, runs at a lower flop rate than the gradient's backward part (a9a on a
/// 2-core VM: gradient 1.96 GFlop/s, evaluation priced at 0.69 ms where it took 1.9 ms).
struct GroupDevices {
  DeviceSpec worker;
  DeviceSpec server;
};

/// fit_roofline(gradient steps) and fit_roofline(evaluations), both with `memory_Bps`, the
/// second with no overhead (no server step is timed, and calls of milliseconds cannot measure a
/// per-call time of microseconds); where there are no evaluations (none timed) the server gets
/// the worker's device. The kernels'
/// "evaluation" flags are not read: the two lists say which is which. REQUIRES `steps` non-empty,
/// each timing with flops > 0 or bytes > 0 and seconds > 0, and memory_Bps > 0.
GroupDevices fit_group_devices(const std::vector<KernelTiming>& steps, const std::vector<KernelTiming>& evaluations,
                               double memory_Bps);

/// The cluster keys of the file: "calibrated" (the record, with "transport_link": {"bandwidth",
/// "latency"}, the whole-time line, and with transport_hosts: "transport_hosts": [two names] and
/// "kernels_measured_on": `machine`, since then only the transport was measured elsewhere),
/// "worker" and "server" groups (devices.worker and devices.server; link and messaging alike), each
/// {"device": {"flops", "bandwidth", "overhead"}, "link": {"bandwidth", "latency"},
/// "messaging": {"send_per_message", "send_per_byte", "receive_per_message",
/// "receive_per_byte"}}, and "cpu": {"cores", "machines": "one"}. Values are strings with units
/// as a scenario writes them ("12.5GBps", "31.2us").
nlohmann::json cluster_section(const CalibrationRecord& record, const GroupDevices& devices, const TransportFit& link);

/// Writes every measurement to `path` as CSV with the header
/// kind,what,size,flops,bytes,median_seconds,send_cpu_seconds,receive_cpu_seconds,repetitions
/// (kind: "transport" (what: its name, size: the encoded message in bytes), "kernel" (what: the
/// model, size: the batch's rows), "evaluation" (what: the model, size: the train and test rows
/// evaluated), "memcpy" (size: bytes copied)), whole or not at all
/// (write_file_atomically). Throws std::runtime_error when it cannot write.
void write_calibration_csv(const std::string& path, const std::vector<TransportSample>& transports,
                           const std::vector<KernelTiming>& kernels, double memcpy_Bps, std::size_t memcpy_bytes,
                           int memcpy_repetitions);

}  // namespace pstwin::cli
