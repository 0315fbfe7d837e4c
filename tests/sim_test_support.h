// Helpers for tests that run the pstwin binary on scenarios they write themselves.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/time_scale.h"

namespace pstwin::testing_support {

/// A fresh folder under the test temp dir, named after the running test.
inline std::string fresh_dir(const std::string& tag = "") {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string dir = ::testing::TempDir() + "pstwin-" + info->test_suite_name() + "-" +
                          info->name() + tag;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

/// Result of running the pstwin binary.
struct CommandResult {
  int exit_code = -1;
  std::string output;  ///< stdout and stderr together
};

/// Runs `pstwin ARGS` (arguments already shell-quoted by the caller) and captures its output.
inline CommandResult run_pstwin_env(const std::string& env_assignments, const std::string& args);
inline CommandResult run_pstwin(const std::string& args) { return run_pstwin_env("", args); }

/// Runs the shell command `cmd` and captures its stdout (add " 2>&1" for stderr too).
inline CommandResult run_shell(const std::string& cmd) {
  CommandResult r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return r;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) r.output.append(buf, n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

/// Runs `ENV_ASSIGNMENTS pstwin ARGS` (e.g. "A=1 B=2") through the shell.
inline CommandResult run_pstwin_env(const std::string& env_assignments, const std::string& args) {
  return run_shell(env_assignments + " " + std::string(PSTWIN_BINARY) + " " + args + " 2>&1");
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The JSON document at `path`; throws std::runtime_error naming the path when it is missing or
/// not JSON, so a failing test says which output was absent.
inline nlohmann::json read_json(const std::string& path) {
  if (!std::filesystem::exists(path)) throw std::runtime_error(path + " does not exist");
  try {
    return nlohmann::json::parse(read_file(path));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

inline void write_json(const std::string& path, const nlohmann::json& doc) {
  std::ofstream(path) << doc.dump(2);
}

/// Writes a small binary-classification LIBSVM file: `rows` examples over 20 features, labels
/// +1/-1 from a fixed linear rule with ~5% flipped, from a fixed LCG so the file is reproducible.
inline void write_toy_libsvm(const std::string& path, int rows, unsigned seed) {
  std::ofstream out(path);
  unsigned state = seed;
  auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return static_cast<double>(state >> 8) / static_cast<double>(1u << 24);
  };
  for (int i = 0; i < rows; ++i) {
    double x[20];
    double z = 0.3;
    for (int j = 0; j < 20; ++j) {
      x[j] = next() < 0.4 ? 1.0 : 0.0;
      z += (j % 3 == 0 ? 1.0 : -0.6) * x[j];
    }
    int label = z > 0 ? 1 : -1;
    if (next() < 0.05) label = -label;
    out << (label > 0 ? "+1" : "-1");
    for (int j = 0; j < 20; ++j)
      if (x[j] != 0.0) out << ' ' << (j + 1) << ":1";
    out << '\n';
  }
}

/// A small logistic-regression scenario on toy data written into `dir`.
inline nlohmann::json toy_scenario(const std::string& dir) {
  write_toy_libsvm(dir + "/train.svm", 2000, 7);
  write_toy_libsvm(dir + "/test.svm", 500, 99);
  return nlohmann::json::parse(R"({
    "name": "toy", "seed": 3,
    "data": {"format": "libsvm", "train": "train.svm", "test": "test.svm"},
    "model": {"type": "logistic", "l2": 1e-4},
    "training": {"iterations": 60, "batch_size": 32, "learning_rate": 0.5, "eval_every": 10,
                 "target_metric": 0.8},
    "consistency": [{"mode": "bsp"}, {"mode": "asp"}, {"mode": "ssp", "staleness": 2}],
    "cluster": {
      "workers": 4, "servers": 2,
      "worker": {"device": {"preset": "cpu", "overhead": "1ms"},
                 "link": {"bandwidth": "10Gbps", "latency": "50us"}},
      "server": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "50us"}}
    },
    "stragglers": [{"type": "transient", "probability": 0.2, "factor": 5}]
  })");
}

/// A timing-only scenario: 4 workers, 2 servers, BSP.
inline nlohmann::json synthetic_scenario(double parameters, double flops_per_iteration) {
  nlohmann::json s = nlohmann::json::parse(R"({
    "name": "synthetic", "seed": 1,
    "model": {"type": "synthetic"},
    "training": {"iterations": 10, "eval_every": 5},
    "consistency": [{"mode": "bsp"}],
    "cluster": {
      "workers": 4, "servers": 2,
      "worker": {"device": {"flops": "10Tf", "bandwidth": "1TBps"},
                 "link": {"bandwidth": "10Gbps", "latency": "10us"}},
      "server": {"device": {"flops": "10Tf", "bandwidth": "1TBps"},
                 "link": {"bandwidth": "10Gbps", "latency": "10us"}}
    }
  })");
  s["model"]["parameters"] = parameters;
  s["model"]["flops_per_iteration"] = flops_per_iteration;
  return s;
}

/// Simulated (or real) seconds per clock between the first evaluation row at clock `from_clock`
/// or later and the last row of a run's metrics.csv, as bench/fidelity.sh and bench/scale_10k.sh
/// measure it: from 0, start-up excluded; from later, the steady state only.
inline double per_iteration_s(const std::string& variant_dir, double from_clock = 0) {
  std::istringstream lines(read_file(variant_dir + "/metrics.csv"));
  std::string line;
  std::getline(lines, line);  // header: time_s,clock,...
  double first_t = -1, first_clock = 0, last_t = 0, last_clock = 0;
  while (std::getline(lines, line)) {
    const double t = std::stod(line.substr(0, line.find(',')));
    const double clock = std::stod(line.substr(line.find(',') + 1));
    if (clock < from_clock) continue;
    if (first_t < 0) first_t = t, first_clock = clock;
    last_t = t, last_clock = clock;
  }
  EXPECT_GT(last_clock, first_clock) << variant_dir;
  return (last_t - first_t) / (last_clock - first_clock);
}

/// Runs `pstwin simulate` on `scenario` (written into dir/scenario.json) with outputs in
/// dir/out; fails the current test if it exits non-zero. Returns the output folder.
inline std::string simulate(const std::string& dir, const nlohmann::json& scenario,
                            const std::string& extra = "") {
  write_json(dir + "/scenario.json", scenario);
  const auto r = run_pstwin("simulate " + dir + "/scenario.json --quiet --out " + dir + "/out " + extra);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return dir + "/out";
}

/// `seconds` * time_scale() as a scenario duration ("0.05s").
inline std::string scaled_duration(double seconds) {
  std::ostringstream s;
  s << seconds * time_scale() << "s";
  return s.str();
}

/// `s` with fault tolerance on (replication, heartbeats every `interval`, a node declared dead
/// after `timeout` of silence) and `failures` injected.
inline nlohmann::json with_fault_tolerance(nlohmann::json s, int replication, const std::string& interval,
                                           const std::string& timeout,
                                           nlohmann::json failures = nlohmann::json::array()) {
  s["fault_tolerance"] = {{"replication", replication},
                          {"heartbeat_interval", interval},
                          {"heartbeat_timeout", timeout}};
  s["failures"] = std::move(failures);
  return s;
}

/// Whether this machine has IPv6 loopback (::1), for tests that skip without it.
inline bool has_ipv6_loopback() {
  std::ifstream interfaces("/proc/net/if_inet6");
  const std::string all((std::istreambuf_iterator<char>(interfaces)), std::istreambuf_iterator<char>());
  return all.find("00000000000000000000000000000001") != std::string::npos;
}

/// The events of type `type` in a variant's output folder (its events.jsonl), in file order.
inline std::vector<nlohmann::json> events_of(const std::string& variant_dir, const std::string& type) {
  std::vector<nlohmann::json> found;
  std::istringstream lines(read_file(variant_dir + "/events.jsonl"));
  for (std::string line; std::getline(lines, line);) {
    auto e = nlohmann::json::parse(line);
    if (e["type"] == type) found.push_back(std::move(e));
  }
  return found;
}

/// The final parameters' SHA-256 of `variant` in the output folder `out`.
inline std::string sha_of(const std::string& out, const std::string& variant) {
  return read_json(out + "/" + variant + "/summary.json")["params_sha256"].get<std::string>();
}

/// Runs simulate, launch --transport inproc, launch over ZeroMQ and over UCX on `scenario`
/// (written to dir/s.json); all four must end with the same parameters (BSP sums gradients in worker order in
/// every environment). `variant` is the run's folder: the scenario's one BSP variant.
inline void expect_parity(const std::string& dir, const nlohmann::json& scenario,
                          const std::string& variant = "bsp") {
  write_json(dir + "/s.json", scenario);
  const std::string s = dir + "/s.json";
  auto r = run_pstwin("simulate " + s + " --quiet --out " + dir + "/sim");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_pstwin("launch " + s + " --transport inproc --out " + dir + "/inproc");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_pstwin("launch " + s + " --out " + dir + "/zmq");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_pstwin("launch " + s + " --transport ucx --insecure --out " + dir + "/ucx");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string expected = sha_of(dir + "/sim", variant);
  EXPECT_EQ(expected.size(), 64u);
  EXPECT_EQ(sha_of(dir + "/inproc", variant), expected);
  EXPECT_EQ(sha_of(dir + "/zmq", variant), expected);
  EXPECT_EQ(sha_of(dir + "/ucx", variant), expected);
  const auto ucx = read_json(dir + "/ucx/" + variant + "/summary.json");
  EXPECT_EQ(ucx["environment"], "ucx");
  EXPECT_EQ(ucx["rejected_messages"], 0);
  const auto zmq = read_json(dir + "/zmq/" + variant + "/summary.json");
  const auto sim = read_json(dir + "/sim/" + variant + "/summary.json");
  EXPECT_EQ(zmq["environment"], "zmq");
  EXPECT_EQ(zmq["updates"], sim["updates"]);
  // The workers' pushes and pulls, as the servers counted them, are the same messages everywhere.
  EXPECT_EQ(zmq["bytes_to_servers"], sim["bytes_to_servers"]);
  EXPECT_EQ(ucx["bytes_to_servers"], sim["bytes_to_servers"]);
  EXPECT_EQ(read_json(dir + "/inproc/" + variant + "/summary.json")["bytes_to_servers"],
            sim["bytes_to_servers"]);
  // Every node's traffic is counted: the same messages as in process, less the few final
  // reports (and their JSON) that carry the counts themselves.
  const double inproc_bytes =
      read_json(dir + "/inproc/" + variant + "/summary.json")["bytes_sent"].get<double>();
  EXPECT_NEAR(zmq["bytes_sent"].get<double>(), inproc_bytes, 0.01 * inproc_bytes);
}

}  // namespace pstwin::testing_support
