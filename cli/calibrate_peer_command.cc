// `pstwin calibrate-peer`: the two processes `pstwin calibrate --hostfile` starts on the first two
// machines of a hostfile (internal; not among pstwin's commands). "echo" listens, prints its
// endpoint and sends every message back; "drive" joins it and times the round trips. Each prints
// its rounds on stdout (cli/calibrate_peer_lines.h) for calibrate to combine.
#include <unistd.h>

#include <iostream>
#include <sstream>

#include "cli/calibrate_peer_lines.h"
#include "cli/calibrate_transports.h"
#include "cli/commands.h"
#include "cli/scenario_options.h"
#include "net/curve_keys.h"
#include "net/listen_check.h"
#include "net/tcp_address.h"
#include "net/zmq_env.h"
#include "runtime/metrics.h"

namespace po = boost::program_options;

namespace pstwin::cli {

namespace {

constexpr const char* kUsage =
    "usage: pstwin calibrate-peer echo|drive --transport zmq|zmq-curve [--key-file F] [--peer ENDPOINT]\n"
    "                             [--sizes B,B,...] [--repetitions N] [--connect-timeout S]\n"
    "Internal: `pstwin calibrate --hostfile` starts one of each on two machines (over its --ssh-command)\n"
    "to time its transport between them. The node advertises PSTWIN_ADVERTISE when set, as `pstwin\n"
    "node` does, else this machine's host name.";

/// Where other machines reach this one: PSTWIN_ADVERTISE (as launch's nodes read it), else the
/// host name. Empty, with `why` set, when the variable names nothing dialable.
std::string advertised_host(std::string& why) {
  if (const char* a = std::getenv("PSTWIN_ADVERTISE")) {
    const std::string host = a;
    why = host.empty() ? "PSTWIN_ADVERTISE is set but empty" : net::dial_host_error(host);
    if (!why.empty() && !host.empty()) why = "PSTWIN_ADVERTISE '" + host + "': " + why;
    return why.empty() ? host : "";
  }
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) {
    why = "cannot read this machine's host name; set PSTWIN_ADVERTISE";
    return "";
  }
  return name;
}

/// "100,1000" as sizes of at least 100 B; empty with `why` set otherwise.
std::vector<std::size_t> sizes_of(const std::string& text, std::string& why) {
  std::vector<std::size_t> sizes;
  std::stringstream in(text);
  for (std::string word; std::getline(in, word, ',');) {
    if (word.empty() || word.size() > 12 || word.find_first_not_of("0123456789") != std::string::npos ||
        std::stoull(word) < 100) {
      why = "--sizes '" + text + "': expected a comma list of message sizes in bytes, each at least 100";
      return {};
    }
    sizes.push_back(std::stoull(word));
  }
  if (sizes.empty()) why = "--sizes is empty";
  return sizes;
}

}  // namespace

int calibrate_peer_command(const std::vector<std::string>& args) {
  po::options_description desc("calibrate-peer options");
  desc.add_options()("help,h", "show this help")("mode", po::value<std::string>(), "echo or drive")(
      "transport", po::value<std::string>(), "zmq-curve or zmq")("key-file", po::value<std::string>(),
                                                                "the CURVE key pair (zmq-curve)")(
      "peer", po::value<std::string>(), "drive: the echo peer's endpoint")(
      "sizes", po::value<std::string>(), "drive: message sizes in bytes, comma separated")(
      "repetitions", po::value<int>()->default_value(7), "drive: kept round trips per size")(
      "connect-timeout", po::value<double>()->default_value(30.0), "seconds to wait for the other side to join");
  po::positional_options_description pos;
  pos.add("mode", 1);
  int code = 0;
  auto vm = parse_args(args, desc, pos, kUsage, code);
  if (!vm) return code;
  const auto fail = [](const std::string& why) {
    std::cerr << "pstwin calibrate-peer: " << why << "\n";
    return 2;
  };
  const std::string mode = vm->count("mode") ? (*vm)["mode"].as<std::string>() : "";
  if (mode != "echo" && mode != "drive") return fail("the mode must be echo or drive, not '" + mode + "'");
  const std::string transport = vm->count("transport") ? (*vm)["transport"].as<std::string>() : "";
  if (transport != "zmq" && transport != "zmq-curve")
    return fail("--transport must be zmq-curve or zmq, not '" + transport + "'");
  const int repetitions = (*vm)["repetitions"].as<int>();
  const double connect_timeout_s = (*vm)["connect-timeout"].as<double>();
  if (repetitions < 1) return fail("--repetitions must be at least 1");
  if (!(connect_timeout_s > 0 && connect_timeout_s <= 3600)) return fail("--connect-timeout must be in (0, 3600] s");
  std::string why;
  const std::string host = advertised_host(why);
  if (host.empty()) return fail(why);
  net::ZmqOptions o;
  // Dialled from another machine, over IPv4 or IPv6, as launch's remote nodes listen.
  o.bind_endpoint = net::tcp_endpoint("*", "*");
  // The last message (the echo peer's, or the driver's kStop) must get out before the process ends.
  o.linger_s = 5.0;
  try {
    if (transport == "zmq-curve") {
      if (!vm->count("key-file")) return fail("--transport zmq-curve needs --key-file");
      o.keys = net::read_key_file((*vm)["key-file"].as<std::string>());
    }
    NullSink sink;  // measurements go nowhere: the node runs no role
    net::ZmqEnv env(o, 1, sink);
    if (mode == "echo") {
      // Said before the rendezvous blocks: calibrate starts the driver with it.
      std::cout << endpoint_line(env.advertised(host)) << std::flush;
      env.host_registration(1, 0, connect_timeout_s);
      std::cout << echo_lines(echo_back(env, 1, true)) << std::flush;
      return 0;
    }
    if (!vm->count("peer") || !vm->count("sizes")) return fail("drive needs --peer and --sizes");
    const std::vector<std::size_t> sizes = sizes_of((*vm)["sizes"].as<std::string>(), why);
    if (sizes.empty()) return fail(why);
    env.join((*vm)["peer"].as<std::string>(), "server", env.advertised(host), connect_timeout_s);
    drive_echo(env, 0, sizes, repetitions,
               [](std::size_t s, const DriverRounds& rounds) { std::cout << driver_size_lines(s, rounds) << std::flush; });
    std::cout << driver_end_line(sizes.size()) << std::flush;
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "pstwin calibrate-peer " << mode << " on " << host << ": " << e.what() << "\n";
    return 1;
  }
}

}  // namespace pstwin::cli
