// `pstwin calibrate --hostfile` on loopback: the transport timed between two pstwin processes
// started through a stand-in for ssh (a script that runs the command here, as
// bench/fidelity_ssh.sh runs it in a namespace), the file it writes validated, and the ways the
// two processes can fail reported within a bound rather than waited on.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "runtime/scenario/units.h"
#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

/// A stand-in for ssh in `dir`: "ssh.sh HOST COMMAND" logs "HOST MODE" (the calibrate-peer mode
/// in COMMAND) to dir/ssh.log and runs `body` with $1 the host and $2 the command.
std::string fake_ssh(const std::string& dir, const std::string& body) {
  const std::string path = dir + "/ssh.sh";
  std::ofstream(path) << "#!/bin/sh\n"
                      << "case \"$2\" in *\"'calibrate-peer' 'echo'\"*) mode=echo;; *\"'calibrate-peer' 'drive'\"*) "
                         "mode=drive;; esac\n"
                      << "echo \"$1 calibrate-peer $mode\" >> " << dir << "/ssh.log\n"
                      << body << "\n";
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path;
}

/// The command run as ssh would run it, advertising loopback as fidelity_ssh.sh advertises a
/// namespace's address.
const char* kRunHere = "exec env PSTWIN_ADVERTISE=127.0.0.1 sh -c \"$2\"";

/// `pstwin calibrate ARGS` under a wall-clock bound: `timeout` ends it with 124 when it hangs.
CommandResult calibrate_within(double seconds, const std::string& args) {
  return run_shell("timeout " + std::to_string(static_cast<int>(seconds * time_scale())) + " " +
                   std::string(PSTWIN_BINARY) + " calibrate " + args + " 2>&1");
}

std::string two_hosts(const std::string& dir) {
  std::ofstream(dir + "/hosts") << "# the echo peer's machine, then the driver's\n127.0.0.1\n127.0.0.1 slots=4\n";
  return dir + "/hosts";
}

TEST(CliCalibrateHosts, TwoProcessesOverTheSshCommandWriteAFileValidateAccepts) {
  const std::string dir = fresh_dir();
  const std::string ssh = fake_ssh(dir, kRunHere);
  // Messages up to 1 MB: the smallest sweep the per-byte fit takes, and seconds on loopback.
  const auto r = calibrate_within(120, "--quick --max-message 1000000 --hostfile " + two_hosts(dir) +
                                           " --ssh-command " + ssh + " --out " + dir + "/calibrated.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("wrote " + dir + "/calibrated.json (link and messaging: zmq-curve between 127.0.0.1 and "
                                           "127.0.0.1)"),
            std::string::npos)
      << r.output;
  // Each of the two processes was started through the ssh command, on its host of the file.
  EXPECT_EQ(read_file(dir + "/ssh.log"), "127.0.0.1 calibrate-peer echo\n127.0.0.1 calibrate-peer drive\n");
  const nlohmann::json c = read_json(dir + "/calibrated.json");
  EXPECT_EQ(c["calibrated"]["transport"], "zmq-curve");
  EXPECT_EQ(c["calibrated"]["transport_hosts"], nlohmann::json({"127.0.0.1", "127.0.0.1"}));
  EXPECT_EQ(c["calibrated"]["kernels_measured_on"], c["calibrated"]["machine"]);
  for (const char* key : {"send_per_message", "receive_per_message", "send_per_byte", "receive_per_byte"})
    EXPECT_GT(parse_duration_s(c["worker"]["messaging"][key]), 0) << key << " " << c.dump(2);
  const double memcpy_Bps = parse_bandwidth_Bps(c["calibrated"]["memcpy_bandwidth"]);
  // Capped at memcpy's rate by the fit: equal is possible on a loaded machine, faster is not.
  EXPECT_LE(parse_bandwidth_Bps(c["calibrated"]["transport_link"]["bandwidth"]), memcpy_Bps * (1 + 1e-5)) << c.dump(2);
  EXPECT_GT(parse_bandwidth_Bps(c["calibrated"]["transport_link"]["bandwidth"]), 0) << c.dump(2);
  // Only the transport asked for, at the sizes asked for: 100 B to 1 MB, seven rounds each.
  std::istringstream csv(read_file(dir + "/calibration.csv"));
  std::vector<std::string> transports;
  for (std::string line; std::getline(csv, line);)
    if (line.rfind("transport,", 0) == 0) transports.push_back(line.substr(0, line.find(',', 10) + 1));
  EXPECT_EQ(transports.size(), 5u);
  for (const std::string& t : transports) EXPECT_EQ(t, "transport,zmq-curve,") << t;
  // No key file is left beside the output.
  for (const auto& entry : std::filesystem::directory_iterator(dir)) EXPECT_NE(entry.path().extension(), ".key");

  nlohmann::json s = synthetic_scenario(1e5, 1e8);
  s["cluster"] = {{"include", "calibrated.json"}, {"workers", 4}, {"servers", 2}};
  write_json(dir + "/s.json", s);
  const auto v = run_pstwin("validate " + dir + "/s.json");
  EXPECT_EQ(v.exit_code, 0) << v.output;
}

TEST(CliCalibrateHosts, OneHostOrFlagsThatDoNotGoTogetherAreRefused) {
  const std::string dir = fresh_dir();
  std::ofstream(dir + "/one") << "node1 slots=2\n";
  const auto one = run_pstwin("calibrate --quick --hostfile " + dir + "/one --out " + dir + "/c.json");
  EXPECT_EQ(one.exit_code, 2) << one.output;
  EXPECT_NE(one.output.find("pstwin calibrate: --hostfile: " + dir +
                            "/one lists 1 host; calibrate measures the transport between the first two hosts of "
                            "the hostfile, so it needs two lines"),
            std::string::npos)
      << one.output;
  const std::string hosts = two_hosts(dir);
  const auto inproc = run_pstwin("calibrate --quick --transport inproc --hostfile " + hosts + " --out " + dir + "/c.json");
  EXPECT_EQ(inproc.exit_code, 2);
  EXPECT_NE(inproc.output.find("--hostfile with --transport inproc: inproc runs every node in one process"),
            std::string::npos) << inproc.output;
  const auto ssh = run_pstwin("calibrate --quick --ssh-command ssh --out " + dir + "/c.json");
  EXPECT_EQ(ssh.exit_code, 2);
  EXPECT_NE(ssh.output.find("--ssh-command needs --hostfile"), std::string::npos) << ssh.output;
  const auto small = run_pstwin("calibrate --quick --max-message 999999 --out " + dir + "/c.json");
  EXPECT_EQ(small.exit_code, 2);
  EXPECT_NE(small.output.find("--max-message is too small: 999999 (it takes 1000000 to"), std::string::npos)
      << small.output;
  EXPECT_FALSE(std::filesystem::exists(dir + "/c.json"));
}

TEST(CliCalibrateHosts, AProcessThatPrintsGarbageOrDiesIsReportedNotWaitedOn) {
  // Each within 60 s (times the sanitizers' scale), where waiting would take the processes'
  // timeouts (30 s to join, 60 s per message) and the sleeps below (600 s).
  const struct {
    const char* what;
    std::string body;
    std::string said;
  } cases[] = {
      {"garbage for an endpoint", "echo 'hello there'; exec sleep 600",
       "host 127.0.0.1: the echo peer's line 1 'hello there': expected 'endpoint tcp://HOST:PORT'"},
      {"an echo peer that dies", "exit 3",
       "host 127.0.0.1: the echo peer exited with status 3 before saying its endpoint"},
      // The echo peer runs and waits for a driver that never comes: it is killed, not awaited.
      {"a driver that dies", "case \"$2\" in *drive*) echo 'oops'; exit 4;; esac\n" + std::string(kRunHere),
       "host 127.0.0.1: the driver exited with status 4 (it printed 'oops\n')"},
      {"a driver that prints garbage",
       "case \"$2\" in *drive*) echo 'size 0 abc'; exit 0;; esac\n" + std::string(kRunHere),
       "host 127.0.0.1: the driver's line 1 'size 0 abc': expected 'size 0 ENCODED_BYTES'"},
  };
  for (const auto& c : cases) {
    const std::string dir = fresh_dir();
    const std::string ssh = fake_ssh(dir, c.body);
    const auto r = calibrate_within(60, "--quick --max-message 1000000 --hostfile " + two_hosts(dir) +
                                            " --ssh-command " + ssh + " --out " + dir + "/c.json");
    EXPECT_EQ(r.exit_code, 1) << c.what << ": " << r.output;  // 124: it hung until `timeout`
    EXPECT_NE(r.output.find("pstwin calibrate: cannot measure zmq-curve: " + c.said), std::string::npos)
        << c.what << ": " << r.output;
    EXPECT_FALSE(std::filesystem::exists(dir + "/c.json")) << c.what;
  }
}

TEST(CliCalibrateHosts, ASignalWhileThePeersRunEndsThemAndLeavesNoKeyFile) {
  // The echo peer's ssh stand-in takes 600 s to start it: calibrate waits for it when SIGINT
  // comes (after 2 s), and must end at once, with the secret key file beside --out removed.
  const std::string dir = fresh_dir();
  const std::string ssh = fake_ssh(dir, "exec sleep 600");
  const auto r = run_shell("timeout -s INT " + std::to_string(static_cast<int>(2 * time_scale())) + " timeout " +
                           std::to_string(static_cast<int>(60 * time_scale())) + " " + std::string(PSTWIN_BINARY) +
                           " calibrate --quick --max-message 1000000 --hostfile " + two_hosts(dir) +
                           " --ssh-command " + ssh + " --out " + dir + "/c.json 2>&1");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("pstwin calibrate: cannot measure zmq-curve: stopped by SIGINT; the two processes were "
                          "ended"),
            std::string::npos)
      << r.output;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    EXPECT_EQ(entry.path().string().find(".key"), std::string::npos) << entry.path();
  EXPECT_FALSE(std::filesystem::exists(dir + "/c.json"));
}

TEST(CliCalibrateHosts, OutOverTheHostfileOrTheSshCommandIsRefused) {
  const std::string dir = fresh_dir();
  const std::string ssh = fake_ssh(dir, kRunHere);
  const std::string hosts = two_hosts(dir);
  for (const std::string& out : {hosts, ssh}) {
    const auto r = calibrate_within(60, "--quick --hostfile " + hosts + " --ssh-command " + ssh + " --out " + out);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("pstwin calibrate: --out " + out + ": that is --"), std::string::npos) << r.output;
  }
  // Both still as they were.
  EXPECT_NE(read_file(hosts).find("127.0.0.1 slots=4"), std::string::npos);
  EXPECT_NE(read_file(ssh).find("#!/bin/sh"), std::string::npos);
}

}  // namespace
}  // namespace pstwin
