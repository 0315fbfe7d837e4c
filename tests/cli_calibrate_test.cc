// `pstwin calibrate --quick` on loopback: a cluster section `validate` accepts, figures in
// plausible ranges, every measurement in calibration.csv, and clear refusals.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "runtime/scenario/units.h"
#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;


/// One transport row of calibration.csv.
struct Row {
  double seconds = 0;  ///< median one-way wall time
  double cpu = 0;      ///< median send + receive CPU
};

/// calibration.csv's transport rows by transport and message size.
std::map<std::string, std::map<double, Row>> transport_rows(const std::string& csv) {
  std::map<std::string, std::map<double, Row>> out;
  std::istringstream in(read_file(csv));
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "kind,what,size,flops,bytes,median_seconds,send_cpu_seconds,receive_cpu_seconds,repetitions");
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream row(line);
    for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
    if (cells.size() >= 8 && cells[0] == "transport")
      out[cells[1]][std::stod(cells[2])] = {std::stod(cells[5]), std::stod(cells[6]) + std::stod(cells[7])};
  }
  return out;
}

TEST(CliCalibrate, QuickRunOnLoopbackWritesAClusterSectionThatValidates) {
  const std::string dir = fresh_dir();
  const auto r = run_pstwin("calibrate --quick --out " + dir + "/calibrated.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("wrote " + dir + "/calibrated.json (link and messaging: zmq-curve)"), std::string::npos)
      << r.output;
  nlohmann::json c = read_json(dir + "/calibrated.json");
  ASSERT_TRUE(c.contains("calibrated") && c.contains("worker") && c.contains("server") && c.contains("cpu")) << c;
  EXPECT_EQ(c["calibrated"]["transport"], "zmq-curve");
  EXPECT_EQ(c["cpu"]["machines"], "one");
  EXPECT_GE(c["cpu"]["cores"].get<int>(), 1);

  // Plausible: every figure positive; no transport moves bytes faster than memcpy copies them.
  const double memcpy_Bps = parse_bandwidth_Bps(c["calibrated"]["memcpy_bandwidth"]);
  const nlohmann::json& w = c["worker"];
  const nlohmann::json& whole = c["calibrated"]["transport_link"];
  // The fit caps every rate at memcpy's (cli/calibration_file.cc): on a loaded machine the large
  // messages' slope can flatten to that cap, so equal is plausible and faster is not.
  EXPECT_LE(parse_bandwidth_Bps(whole["bandwidth"]), memcpy_Bps * (1 + 1e-5)) << c.dump(2);
  EXPECT_GT(parse_duration_s(whole["latency"]), 0) << c.dump(2);
  // The link is what is left of a message's time once the CPU terms are out: on loopback it may
  // be next to nothing, but never faster than memcpy.
  const double link_Bps = parse_bandwidth_Bps(w["link"]["bandwidth"]);
  EXPECT_GT(link_Bps, 0);
  EXPECT_LE(link_Bps, memcpy_Bps * (1 + 1e-5)) << c.dump(2);
  EXPECT_GE(parse_duration_s(w["link"]["latency"]), 0) << c.dump(2);
  EXPECT_GT(parse_flops(w["device"]["flops"]), 0);
  EXPECT_GT(parse_bandwidth_Bps(w["device"]["bandwidth"]), 0);
  for (const char* key : {"send_per_message", "receive_per_message"})
    EXPECT_GT(parse_duration_s(w["messaging"][key]), 0) << key << " " << c.dump(2);
  for (const char* key : {"send_per_byte", "receive_per_byte"})
    EXPECT_GE(parse_duration_s(w["messaging"][key]), 0) << key;

  // Every measurement is in the CSV. In process beats ZeroMQ: in CPU for the smallest message
  // (5x apart here; a wall time that small is at the mercy of the scheduler on a busy machine)
  // and in wall time for the largest (10 MB: over 10x apart).
  const auto rows = transport_rows(dir + "/calibration.csv");
  ASSERT_EQ(rows.size(), 3u);
  const auto& inproc = rows.at("inproc");
  const auto& zmq = rows.at("zmq");
  ASSERT_EQ(inproc.size(), 6u);
  EXPECT_LT(inproc.begin()->second.cpu, zmq.at(inproc.begin()->first).cpu);
  EXPECT_LT(inproc.rbegin()->second.seconds, zmq.at(inproc.rbegin()->first).seconds);
  EXPECT_NE(read_file(dir + "/calibration.csv").find("kernel,\"softmax\","), std::string::npos);
  // Quick mode measures as the full one where stability needs it (a trial's two quick runs wrote
  // memcpy 14.1 and 8.07 GB/s, the full one 1.84): memcpy of 100 MB, past any cache, median of
  // 7; seven round trips per message size, as the README says.
  const std::string csv = read_file(dir + "/calibration.csv");
  EXPECT_NE(csv.find("\nmemcpy,memcpy,100000000,,100000000,"), std::string::npos) << csv;
  std::istringstream lines(csv);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("transport,", 0) == 0 || line.rfind("memcpy,", 0) == 0) {
      EXPECT_EQ(line.substr(line.rfind(',') + 1), "7") << line;
    }
  // The device table says what the file holds when the written fit left a rate open (its row
  // has a "*"): a trial's table gave memcpy's 28.20 GB/s where the file held 28.04.
  const std::size_t row = r.output.find("all models (written)");
  ASSERT_NE(row, std::string::npos) << r.output;
  if (r.output.substr(row, r.output.find('\n', row) - row).find('*') != std::string::npos) {
    char written[32];
    std::snprintf(written, sizeof written, "%.2f", parse_bandwidth_Bps(w["device"]["bandwidth"]) / 1e9);
    EXPECT_NE(r.output.find(std::string("the file's bandwidth is ") + written + " GB/s"), std::string::npos)
        << r.output;
  }

  // A scenario includes it and validates.
  nlohmann::json s = synthetic_scenario(1e5, 1e8);
  s["cluster"] = {{"include", "calibrated.json"}, {"workers", 4}, {"servers", 2}};
  write_json(dir + "/s.json", s);
  const auto v = run_pstwin("validate " + dir + "/s.json");
  EXPECT_EQ(v.exit_code, 0) << v.output;
  const auto set = run_pstwin("validate " + dir + "/s.json --set /cluster/include=" + dir + "/calibrated.json");
  EXPECT_EQ(set.exit_code, 0) << set.output;
  EXPECT_NE(set.output.find("set: /cluster/include = " + dir + "/calibrated.json (its keys included)"),
            std::string::npos) << set.output;
}

TEST(CliCalibrate, RefusesWhatItCannotMeasure) {
  const std::string dir = fresh_dir();
  const auto ucx = run_pstwin("calibrate --quick --transport ucx --out " + dir + "/c.json");
  EXPECT_EQ(ucx.exit_code, 2);
  EXPECT_NE(ucx.output.find("--transport ucx: not measured yet"), std::string::npos) << ucx.output;
  const auto tcp = run_pstwin("calibrate --quick --transport tcp --out " + dir + "/c.json");
  EXPECT_EQ(tcp.exit_code, 2);
  EXPECT_NE(tcp.output.find("--transport must be zmq-curve, zmq, inproc or ucx, not 'tcp'"), std::string::npos);
  // A hostfile of one host: tests/cli_calibrate_hosts_test.cc.
  const auto no_out = run_pstwin("calibrate --quick");
  EXPECT_EQ(no_out.exit_code, 2);
  EXPECT_NE(no_out.output.find("--out FILE is required"), std::string::npos);
  const auto device = run_pstwin("calibrate --quick --device tpu --out " + dir + "/c.json");
  EXPECT_EQ(device.exit_code, 2);
  EXPECT_NE(device.output.find("--device must be cpu or cuda, not 'tpu'"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir + "/c.json"));
  // Names that cannot hold the result are refused before measuring (a trial lost the file to
  // its own CSV, and wrote into /dev beside /dev/null).
  const auto csv = run_pstwin("calibrate --quick --out " + dir + "/calibration.csv");
  EXPECT_EQ(csv.exit_code, 2);
  EXPECT_NE(csv.output.find("give a file name other than calibration.csv"), std::string::npos) << csv.output;
  const auto dev = run_pstwin("calibrate --quick --out /dev/null");
  EXPECT_EQ(dev.exit_code, 2);
  EXPECT_NE(dev.output.find("is not a regular file"), std::string::npos) << dev.output;
  EXPECT_FALSE(std::filesystem::exists("/dev/calibration.csv"));
}

// A trial's `--out /proc/x.json` failed after minutes of measuring, and two calibrates into one
// folder ran together, each writing its calibration.csv there. Each output (the file and the
// CSV beside it) is tried, and the folder's lock taken, before anything is measured.
TEST(CliCalibrate, AnOutputItCannotWriteOrAFolderInUseIsRefusedBeforeMeasuring) {
  const std::string dir = fresh_dir();
  const auto proc = run_pstwin("calibrate --quick --out /proc/x.json");
  EXPECT_EQ(proc.exit_code, 2) << proc.output;
  EXPECT_NE(proc.output.find("pstwin calibrate: --out /proc/x.json: cannot create a file in /proc: "),
            std::string::npos) << proc.output;
  EXPECT_EQ(proc.output.find("calibrate: memcpy"), std::string::npos) << proc.output;  // nothing measured

  std::filesystem::create_directories(dir + "/csv/calibration.csv");
  const auto csv = run_pstwin("calibrate --quick --out " + dir + "/csv/c.json");
  EXPECT_EQ(csv.exit_code, 2) << csv.output;
  EXPECT_NE(csv.output.find("the raw measurements' file beside it, " + dir + "/csv/calibration.csv, is a folder"),
            std::string::npos) << csv.output;
  EXPECT_EQ(csv.output.find("calibrate: memcpy"), std::string::npos) << csv.output;

  const std::string held = dir + "/held";
  std::filesystem::create_directories(held);
  const int fd = ::open((held + "/.pstwin.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
  const std::string line = std::to_string(::getpid()) + " calibrate\n";
  ASSERT_EQ(::write(fd, line.data(), line.size()), static_cast<ssize_t>(line.size()));
  const auto second = run_pstwin("calibrate --quick --out " + held + "/c.json");
  ::close(fd);
  EXPECT_EQ(second.exit_code, 2) << second.output;
  EXPECT_NE(second.output.find("pstwin calibrate: output folder " + held + " is in use by another run (pid " +
                               std::to_string(::getpid()) + ", pstwin calibrate)"),
            std::string::npos) << second.output;
  EXPECT_EQ(second.output.find("calibrate: memcpy"), std::string::npos) << second.output;
  EXPECT_FALSE(std::filesystem::exists(held + "/c.json"));
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir))  // no probe left behind
    EXPECT_EQ(entry.path().filename().string().find(".tmp."), std::string::npos) << entry.path();
}

}  // namespace
}  // namespace pstwin
