// `pstwin calibrate`: measures this machine -- each transport's message times and host CPU cost,
// the kernels' rates, memcpy -- and writes a cluster section a scenario includes (README,
// "Calibrating to your machine").
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <optional>
#include <tuple>
#include <thread>

#include "cli/command_name.h"
#include "cli/flag_values.h"
#include "cli/calibrate_hosts.h"
#include "cli/calibrate_kernels.h"
#include "cli/calibrate_transports.h"
#include "cli/calibration_file.h"
#include "cli/commands.h"
#include "cli/hostfile.h"
#include "cli/output_lock.h"
#include "cli/output_over_input.h"
#include "cli/output_probe.h"
#include "cli/scenario_options.h"
#include "cli/version_text.h"
#include "kernels/select_backend.h"
#include "runtime/output/atomic_file.h"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace pstwin::cli {

namespace {

constexpr const char* kUsage =
    "usage: pstwin calibrate [SCENARIO.json ...] --out calibrated.json [--transport zmq|zmq-curve|inproc]\n"
    "                        [--device cpu|cuda] [--quick] [--max-message BYTES]\n"
    "                        [--hostfile FILE [--ssh-command CMD]]\n"
    "Measures this machine and writes the cluster keys a scenario includes with\n"
    "\"cluster\": {\"include\": \"calibrated.json\"}: the link and host messaging costs of\n"
    "--transport (default zmq-curve, launch's default), the device fitted to timed runs of the\n"
    "kernels of the scenarios' models (without a scenario: the shipped models on synthetic\n"
    "data), and the cores. Every raw measurement goes to calibration.csv beside --out.\n"
    "About 40 s; --quick a few seconds, with messages up to 10 MB and shorter kernel runs.\n"
    "With --hostfile, the transport is measured between the file's first two machines, one pstwin\n"
    "process on each started over --ssh-command as launch starts nodes (the same paths on both); the\n"
    "kernels, memcpy and cores stay this machine's.";

/// The sweep and run lengths of one mode.
struct Plan {
  std::vector<std::size_t> sizes;  ///< encoded message bytes
  int repetitions;
  double kernel_seconds;           ///< per model and batch size
  std::size_t memcpy_bytes;
  int memcpy_repetitions;
};

/// The smallest message the per-byte fits take (fit_transport's 1 MB): --max-message goes no lower.
constexpr int kMaxMessageFloor = 1'000'000;

/// The memcpy both modes time: 100 MB, past any cache, median of 7. A quick run once copied
/// 10 MB, which its source and destination kept in a large L3: 14.1 and 8.07 GB/s in two quick
/// runs against 1.84 in the full one, and every link rate capped at it followed (14.10 against
/// 0.968 GB/s). A transport's rate is set against memory's, never a cache's.
constexpr std::size_t kMemcpyBytes = 100'000'000;
constexpr int kMemcpyRepetitions = 7;

Plan plan_for(bool quick) {
  // Seven round trips per size in both modes, median: three let one slow round of the two that
  // fix the bandwidth (1 and 10 MB, in a quick run) swing the fit. Quick saves the 100 MB messages
  // and most of the kernels' time.
  if (quick) return {{100, 1'000, 10'000, 100'000, 1'000'000, 10'000'000}, 7, 0.02, kMemcpyBytes, kMemcpyRepetitions};
  return {{100, 1'000, 10'000, 100'000, 1'000'000, 10'000'000, 100'000'000}, 7, 0.3, kMemcpyBytes, kMemcpyRepetitions};
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::string fixed(double x, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, x);
  return text;
}

void print_transport_table(const std::vector<TransportFit>& fits) {
  std::printf("%-10s %14s %10s %14s %10s %12s %12s %12s %12s\n", "transport", "one way: us", "GB/s",
              "link: us", "GB/s", "send us/msg", "send ns/B", "recv us/msg", "recv ns/B");
  for (const TransportFit& f : fits)
    std::printf("%-10s %14.2f %10.3f %14.2f %10.3f %12.2f %12.4f %12.2f %12.4f\n", f.transport.c_str(),
                f.whole_latency_s * 1e6, f.whole_bandwidth_Bps / 1e9, f.latency_s * 1e6, f.bandwidth_Bps / 1e9,
                f.send_cpu.intercept * 1e6, f.send_cpu.slope * 1e9, f.receive_cpu.intercept * 1e6,
                f.receive_cpu.slope * 1e9);
  std::printf("(one way: the whole time of a message; link: what is left once the send and receive CPU\n"
              " time is taken out, the file's link; a link at memcpy's rate means the CPU explains it all)\n");
}

/// A rate for the device table: "15.82", or ">= 2.10*" for one the kernels leave open (only a
/// floor is known: see RooflineSides).
std::string rate_cell(double rate, bool determined, double at_least) {
  return determined ? fixed(rate / 1e9, 2) : ">= " + fixed(at_least / 1e9, 2) + "*";
}

/// One row of the device table; returns whether a rate in it was left open.
bool print_device_row(const std::string& what, const DeviceSpec& d, const std::vector<KernelSample>& samples) {
  const RooflineSides sides = roofline_sides(samples, d);
  std::printf("%-30s %12s %14s %14s\n", what.c_str(),
              rate_cell(d.peak_flops, sides.flops_determined(), sides.flops_at_least).c_str(),
              rate_cell(d.mem_bandwidth_Bps, sides.bandwidth_determined(), sides.bandwidth_at_least).c_str(),
              fixed(d.overhead_s * 1e6, 2).c_str());
  return !sides.flops_determined() || !sides.bandwidth_determined();
}

/// A device table: each model's own fit, then the one over all of them, which the file holds
/// (row `written_as`), and what its figures mean (a trial read 21 GB/s per model against 3.3 GB/s
/// written). `kernels` are the workers' gradient steps or the scheduler's evaluations.
void print_device_table(const std::vector<KernelTiming>& kernels, const DeviceSpec& written, double memory_Bps,
                        const std::string& written_as) {
  std::printf("\n%-30s %12s %14s %14s\n",
              kernels.empty() || !kernels[0].evaluation ? "device fit: gradient steps" : "device fit: evaluations",
              "GFlop/s", "GB/s", "overhead us");
  std::vector<KernelSample> all;
  bool open = false;
  for (std::size_t i = 0; i < kernels.size();) {
    std::vector<KernelSample> one;
    const std::string model = kernels[i].model;
    for (; i < kernels.size() && kernels[i].model == model; ++i)
      one.push_back({kernels[i].flops, kernels[i].bytes, kernels[i].seconds});
    open = print_device_row(model, fit_roofline(one, memory_Bps), one) || open;
    all.insert(all.end(), one.begin(), one.end());
  }
  const bool written_open = print_device_row(written_as, written, all);
  if (open || written_open)
    std::printf("* not measured, only bounded: the row's kernels were all compute-bound (a GB/s floor) or\n"
                "  all memory-bound (a GFlop/s floor), and every rate from the floor up fits them alike. One\n"
                "  model's kernels at several batch sizes share about one flops-to-bytes ratio, so they\n"
                "  measure one rate only. Where open, the fit takes the bandwidth nearest memcpy's (%.2f GB/s,\n"
                "  counting bytes read and written) that fits them%s.\n",
                memory_Bps / 1e9,
                // What the file holds, as it is written there (a trial's table said 28.20 where the
                // file held 28.04: the fitted rate, not memcpy's).
                written_open ? (": the file's bandwidth is " + fixed(written.mem_bandwidth_Bps / 1e9, 2) + " GB/s").c_str()
                             : "");
  if (!kernels.empty() && kernels[0].evaluation)
    std::printf("servers: one roofline through every evaluation above, with no per-call overhead (no\n"
                "server step is timed): the server group's device, which prices the scheduler's\n"
                "evaluation and the servers' aggregation and optimizer steps.\n");
  else if (kernels.size() > 1 && !written_open)
    std::printf("all models: one roofline through every kernel above, the worker group's device. A model\n"
                "that reaches less per flop than the others (a sparse one) is memory-bound on it at the\n"
                "written GB/s, so that rate is what such kernels achieve, not memcpy's.\n");
}

}  // namespace

int calibrate_command(const std::vector<std::string>& args) {
  po::options_description desc("calibrate options");
  desc.add_options()("help,h", "show this help")(
      "scenario", po::value<std::vector<std::string>>()->multitoken(), "scenarios whose models to time")(
      "out", po::value<std::string>(), "the cluster keys file to write (calibration.csv goes beside it)")(
      "transport", po::value<std::string>()->default_value("zmq-curve"),
      "whose link and messaging costs the file holds: zmq-curve, zmq (insecure), inproc (ucx is refused: not "
      "measured yet)")(
      "device", po::value<std::string>()->default_value("cpu"), "the kernels' device: cpu or cuda")(
      "hostfile", po::value<std::string>(),
      "measure the transport between the first two machines of this hostfile (as launch reads it) rather than "
      "over loopback here")("ssh-command", po::value<std::string>(),
                            "with --hostfile: how to run a command on a machine, as launch's (default ssh)")(
      "max-message", int_at_least(kMaxMessageFloor),
      "the largest message timed, in bytes (at least 1000000: the per-byte fit needs 1 MB messages); for slow "
      "links")("quick", po::bool_switch(), "a shorter run (a few seconds)");
  po::positional_options_description pos;
  pos.add("scenario", -1);
  int code = 0;
  auto vm = parse_args(args, desc, pos, kUsage, code);
  if (!vm) return code;
  if (!vm->count("out")) {
    std::cerr << "pstwin calibrate: --out FILE is required (the cluster keys file to write)\n";
    return 2;
  }
  const std::string out = (*vm)["out"].as<std::string>();
  const std::string transport = (*vm)["transport"].as<std::string>();
  const std::vector<std::string> known = measurable_transports();
  if (transport == "ucx") {
    std::cerr << "pstwin calibrate: --transport ucx: not measured yet (UCX links two servers or workers, "
                 "and calibrate's pair is a scheduler and a server, which always talk ZeroMQ); "
                 "use zmq-curve, zmq or inproc\n";
    return 2;
  }
  if (std::find(known.begin(), known.end(), transport) == known.end()) {
    std::cerr << "pstwin calibrate: --transport must be zmq-curve, zmq, inproc or ucx, not '" << transport << "'\n";
    return 2;
  }
  const std::string device_name = (*vm)["device"].as<std::string>();
  if (device_name != "cpu" && device_name != "cuda") {
    std::cerr << "pstwin calibrate: --device must be cpu or cuda, not '" << device_name << "'\n";
    return 2;
  }
  std::optional<HostPairSettings> between;
  if (vm->count("hostfile")) {
    const std::string hostfile = (*vm)["hostfile"].as<std::string>();
    if (transport == "inproc") {
      std::cerr << "pstwin calibrate: --hostfile with --transport inproc: inproc runs every node in one "
                   "process and has no link between machines; use zmq-curve or zmq\n";
      return 2;
    }
    between.emplace();
    try {
      std::tie(between->echo_host, between->drive_host) = first_two_hosts(read_hostfile(hostfile), hostfile);
    } catch (const std::exception& e) {
      std::cerr << "pstwin calibrate: --hostfile: " << e.what() << "\n";
      return 2;
    }
    if (vm->count("ssh-command")) between->ssh_command = (*vm)["ssh-command"].as<std::string>();
    if (split_words(between->ssh_command).empty()) {
      std::cerr << "pstwin calibrate: --ssh-command is empty: give the command that runs a command on a host "
                   "(default ssh)\n";
      return 2;
    }
  } else if (vm->count("ssh-command")) {
    std::cerr << "pstwin calibrate: --ssh-command needs --hostfile (without one, calibrate measures loopback on "
                 "this machine and starts nothing over ssh)\n";
    return 2;
  }
  // Said before minutes of measuring, not after: a name that cannot hold the result, a file
  // that cannot be written (a trial gave /proc/x.json), another calibrate writing there.
  if (fs::path(out).filename() == "calibration.csv") {
    std::cerr << "pstwin calibrate: --out '" << out << "': give a file name other than calibration.csv "
              << "(the raw measurements go to calibration.csv beside it), e.g. calibrated.json\n";
    return 2;
  }
  const fs::path out_dir = fs::path(out).parent_path();
  const std::string csv = (out_dir.empty() ? fs::path("calibration.csv") : out_dir / "calibration.csv").string();
  std::vector<CommandInput> inputs;
  if (vm->count("scenario"))
    for (const std::string& path : (*vm)["scenario"].as<std::vector<std::string>>()) inputs.push_back({"a scenario", path});
  // calibrate reads these too: an --out over one would destroy it (a trial's hostfile became JSON).
  if (vm->count("hostfile")) inputs.push_back({"--hostfile", (*vm)["hostfile"].as<std::string>()});
  if (vm->count("ssh-command")) {
    const std::vector<std::string> words = split_words((*vm)["ssh-command"].as<std::string>());
    if (!words.empty()) inputs.push_back({"--ssh-command", words.front()});
  }
  if (const std::string why = out_overwrites_input(out, "--out " + out, OutKind::kFile, inputs, {csv}); !why.empty()) {
    std::cerr << "pstwin calibrate: " << why << "\n";
    return 2;
  }
  for (const std::string& file : {out, csv})
    if (const std::string why = cannot_write_file(file); !why.empty()) {
      std::cerr << "pstwin calibrate: --out " << out << ": "
                << (file == out ? why + "; give the file to write, e.g. calibrated.json"
                                : "the raw measurements' file beside it, " + csv + ", " + why +
                                      "; remove it, or write --out into another folder")
                << "\n";
      return 2;
    }
  // Two calibrates into one folder would write one calibration.csv: one at a time, as runs.
  std::string lock_error;
  // Its two files only: runs in the folders inside (calibrate --out calibrated.json beside runs/)
  // go on, and do not hold it off.
  const auto lock = OutputLock::take(out_dir.empty() ? "." : out_dir.string(), "calibrate", lock_error,
                                     OutputLock::Scope::kFilesOnly);
  if (!lock) {
    std::cerr << "pstwin calibrate: " << lock_error << "\n";
    return 2;
  }
  const bool quick = (*vm)["quick"].as<bool>();
  Plan plan = plan_for(quick);
  if (vm->count("max-message")) {
    const auto largest = static_cast<std::size_t>((*vm)["max-message"].as<int>());
    std::erase_if(plan.sizes, [&](std::size_t b) { return b > largest; });
  }
  // The key file goes beside --out, a folder launch's nodes would see too (its output's).
  if (between) between->key_dir = out_dir.empty() ? "." : out_dir.string();

  std::vector<Scenario> scenarios;
  if (vm->count("scenario"))
    for (const std::string& path : (*vm)["scenario"].as<std::vector<std::string>>()) {
      try {
        scenarios.push_back(load_scenario(path));
        if (scenarios.back().model.type == "synthetic")
          std::cerr << "calibrate: " << path << ": a synthetic model runs no kernels; it adds nothing to the device fit\n";
      } catch (const ScenarioError& e) {
        std::cerr << error_prefix() << "invalid scenario " << path << ": " << e.what() << "\n";
        return 2;
      }
    }

  std::string chosen;
  std::unique_ptr<KernelBackend> backend;
  try {
    backend = make_backend(device_name, &chosen);
  } catch (const DeviceError& e) {
    std::cerr << "pstwin calibrate: --device " << device_name << ": " << e.what() << "\n";
    return 2;
  }

  std::cerr << "calibrate: memcpy\n";
  const double memcpy_Bps = memcpy_bandwidth(plan.memcpy_bytes, plan.memcpy_repetitions);
  std::vector<TransportSample> samples;
  std::vector<TransportFit> fits;
  TransportFit chosen_fit;
  // Between machines only the transport asked for: the others would need the same two processes
  // again, and a scenario includes one transport's figures.
  for (const std::string& t : between ? std::vector<std::string>{transport} : known) {
    std::cerr << "calibrate: " << t << ", messages of " << plan.sizes.front() << " B to " << plan.sizes.back()
              << " B" << (between ? " between " + between->echo_host + " and " + between->drive_host : "") << "\n";
    std::vector<TransportSample> s;
    try {
      s = between ? measure_transport_between(*between, t, plan.sizes, plan.repetitions)
                  : measure_transport(t, plan.sizes, plan.repetitions);
    } catch (const std::exception& e) {
      std::cerr << "pstwin calibrate: cannot measure " << t << ": " << e.what() << "\n";
      return 1;
    }
    fits.push_back(fit_transport(s, memcpy_Bps));
    if (t == transport) chosen_fit = fits.back();
    samples.insert(samples.end(), s.begin(), s.end());
  }
  std::cerr << "calibrate: kernels on " << chosen << "\n";
  std::vector<KernelTiming> kernels, evaluations;
  NodeWait wait(private_cache_eviction_bytes(), kNodeWaitSleepS);
  std::cerr << "calibrate: each call after a node's wait: " << wait.bytes() / 1024 << " KiB written (the caches"
            << " emptied), then " << wait.sleep_s() * 1e3 << " ms asleep\n";
  try {
    kernels = time_kernels(scenarios, *backend, plan.kernel_seconds, wait);
    std::cerr << "calibrate: evaluations on " << chosen << "\n";
    evaluations = time_evaluations(scenarios, *backend, plan.kernel_seconds, wait);
  } catch (const DataError& e) {
    std::cerr << error_prefix() << "bad data: " << e.what() << "\n";
    return 2;
  } catch (const ScenarioError& e) {
    std::cerr << error_prefix() << "invalid scenario: " << e.what() << "\n";
    return 2;
  }
  if (kernels.empty()) {
    std::cerr << "pstwin calibrate: the scenarios' models are all \"synthetic\", which run no kernels: "
                 "give a scenario with a real model, or none for the shipped models\n";
    return 2;
  }
  // The Cost counts bytes read and written; a memcpy reads and writes each byte it copies.
  const double memory_Bps = 2 * memcpy_Bps;
  const GroupDevices devices = fit_group_devices(kernels, evaluations, memory_Bps);

  std::vector<KernelTiming> timings = kernels;
  timings.insert(timings.end(), evaluations.begin(), evaluations.end());

  CalibrationRecord record;
  record.machine = host_name();
  record.date = utc_now();
  record.pstwin_version = pstwin_version();
  record.transport = transport;
  record.device = chosen;
  record.cores = std::max(1u, std::thread::hardware_concurrency());
  record.memcpy_Bps = memcpy_Bps;
  record.quick = quick;
  if (between) record.transport_hosts = {between->echo_host, between->drive_host};
  try {
    write_file_atomically(out, cluster_section(record, devices, chosen_fit).dump(2) + "\n");
    write_calibration_csv(csv, samples, timings, memcpy_Bps, plan.memcpy_bytes, plan.memcpy_repetitions);
  } catch (const std::exception& e) {
    std::cerr << "pstwin calibrate: " << e.what() << "\n";
    return 1;
  }

  print_transport_table(fits);
  print_device_table(kernels, devices.worker, memory_Bps, "workers: all models (written)");
  print_device_table(evaluations, devices.server, memory_Bps, "servers, evaluation (written)");
  std::printf("\nmemcpy: %.2f GB/s; cores: %u; device: %s\n", memcpy_Bps / 1e9, record.cores, chosen.c_str());
  std::printf("wrote %s (link and messaging: %s%s) and %s\n", out.c_str(), transport.c_str(),
              between ? (" between " + between->echo_host + " and " + between->drive_host).c_str() : "", csv.c_str());
  return 0;
}

}  // namespace pstwin::cli
