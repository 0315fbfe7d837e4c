// Echoing messages between two Envs of one transport, timed: wall clock and CPU on both sides.
#include "cli/calibrate_transports.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <memory>
#include <stdexcept>
#include <thread>

#include "cli/calibration_fit.h"
#include "net/curve_keys.h"
#include "net/inproc_env.h"
#include "net/zmq_env.h"
#include "runtime/codec.h"
#include "runtime/metrics.h"

namespace pstwin::cli {

namespace {

constexpr double kReplyTimeout_s = 60.0;

double cpu_seconds(clockid_t clock) {
  timespec t{};
  clock_gettime(clock, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}
double thread_cpu() { return cpu_seconds(CLOCK_THREAD_CPUTIME_ID); }
double process_cpu() { return cpu_seconds(CLOCK_PROCESS_CPUTIME_ID); }

/// Two nodes of one transport: `a` (node 0) drives, `b` (node 1) echoes.
struct EnvPair {
  NullSink sink;  // measurements go nowhere: the two nodes run no role
  // in-process
  std::unique_ptr<net::InprocNetwork> network;
  // ZeroMQ
  std::unique_ptr<net::ZmqEnv> zmq_a, zmq_b;
  std::unique_ptr<net::InprocEnv> inproc_a, inproc_b;
  Env* a = nullptr;
  Env* b = nullptr;
};

std::unique_ptr<EnvPair> make_pair(const std::string& transport) {
  auto pair = std::make_unique<EnvPair>();
  if (transport == "inproc") {
    const JobLayout layout{1, 0};
    pair->network = std::make_unique<net::InprocNetwork>(2);
    const auto start = std::chrono::steady_clock::now();
    pair->inproc_a = std::make_unique<net::InprocEnv>(*pair->network, layout, 0, 1, pair->sink, start);
    pair->inproc_b = std::make_unique<net::InprocEnv>(*pair->network, layout, 1, 1, pair->sink, start);
    pair->a = pair->inproc_a.get();
    pair->b = pair->inproc_b.get();
    return pair;
  }
  if (transport != "zmq" && transport != "zmq-curve")
    throw std::invalid_argument("calibrate cannot measure transport \"" + transport + "\"");
  net::ZmqOptions o;
  if (transport == "zmq-curve") o.keys = net::make_job_keys();
  o.linger_s = 0;
  // A scheduler and one server, through the real rendezvous: the pair then speaks exactly as
  // the nodes of a job do.
  pair->zmq_a = std::make_unique<net::ZmqEnv>(o, 1, pair->sink);
  pair->zmq_b = std::make_unique<net::ZmqEnv>(o, 1, pair->sink);
  auto hosting = std::async(std::launch::async, [&] { pair->zmq_a->host_registration(1, 0, 10.0); });
  pair->zmq_b->join(pair->zmq_a->endpoint(), "server", pair->zmq_b->endpoint(), 10.0);
  hosting.get();
  pair->a = pair->zmq_a.get();
  pair->b = pair->zmq_b.get();
  return pair;
}

/// A push of whole-range float values whose encoding is about `bytes` long.
Message message_of_about(std::size_t bytes) {
  Message m;
  m.header.type = MsgType::kPush;
  m.header.flags = msg_flags::kWholeRange;
  m.keys = {0};
  const std::size_t header = encoded_size(m);
  m.values.assign(bytes > header ? (bytes - header) / sizeof(float) : 0, 1.0f);
  return m;
}

/// What the echoing node spent on one round trip.
struct EchoCpu {
  double receive_s = 0;
  double send_s = 0;
};

/// Node b's loop: every message goes back to node 0 until a kStop.
void echo(Env& b, std::vector<EchoCpu>& rounds, std::string& failure) {
  for (;;) {
    const double t0 = thread_cpu();
    std::optional<Message> m = b.recv(kReplyTimeout_s);
    const double t1 = thread_cpu();
    if (!m) {
      failure = "the echoing node received nothing for " + std::to_string(int(kReplyTimeout_s)) + " s";
      return;
    }
    if (m->header.type == MsgType::kStop) return;
    b.send(0, std::move(*m));
    rounds.push_back({t1 - t0, thread_cpu() - t1});
  }
}

}  // namespace

std::vector<std::string> measurable_transports() { return {"inproc", "zmq", "zmq-curve"}; }

std::vector<TransportSample> measure_transport(const std::string& transport, const std::vector<std::size_t>& sizes,
                                               int repetitions) {
  auto pair = make_pair(transport);
  std::vector<EchoCpu> echoed;
  echoed.reserve(sizes.size() * static_cast<std::size_t>(repetitions + 1));
  std::string echo_failure;
  std::thread echoer([&] { echo(*pair->b, echoed, echo_failure); });

  struct Round {
    double wall_s, send_s, receive_s, process_s;
  };
  std::vector<std::vector<Round>> rounds(sizes.size());
  std::vector<double> encoded(sizes.size());
  std::string failure;
  for (std::size_t s = 0; s < sizes.size() && failure.empty(); ++s) {
    Message m = message_of_about(sizes[s]);
    encoded[s] = static_cast<double>(encoded_size(m));
    for (int r = 0; r <= repetitions; ++r) {  // round 0 warms the buffers up and is not kept
      const double p0 = process_cpu();
      const double c0 = thread_cpu();
      const auto w0 = std::chrono::steady_clock::now();
      pair->a->send(1, std::move(m));
      const double c1 = thread_cpu();
      std::optional<Message> back = pair->a->recv(kReplyTimeout_s);
      const auto w1 = std::chrono::steady_clock::now();
      const double c2 = thread_cpu();
      const double p1 = process_cpu();
      if (!back) {
        failure = transport + ": a message of " + std::to_string(sizes[s]) + " B did not come back within " +
                  std::to_string(int(kReplyTimeout_s)) + " s";
        break;
      }
      m = std::move(*back);
      if (r > 0)
        rounds[s].push_back({std::chrono::duration<double>(w1 - w0).count(), c1 - c0, c2 - c1, p1 - p0});
    }
  }
  Message stop;
  stop.header.type = MsgType::kStop;
  pair->a->send(1, std::move(stop));
  echoer.join();
  if (!failure.empty()) throw std::runtime_error(failure);
  if (!echo_failure.empty()) throw std::runtime_error(transport + ": " + echo_failure);

  // The echo's rounds line up with the driver's, warm-up rounds included.
  std::vector<TransportSample> out;
  std::size_t e = 0;
  for (std::size_t s = 0; s < sizes.size(); ++s) {
    ++e;  // the warm-up round
    std::vector<double> wall, send, receive;
    for (const Round& r : rounds[s]) {
      const EchoCpu& b = echoed.at(e++);
      // Both nodes sent one message and received one; whatever else the process burned in the
      // round is the transport's I/O threads, half on the sending side and half on the receiving.
      const double io = std::max(0.0, r.process_s - r.send_s - r.receive_s - b.send_s - b.receive_s);
      wall.push_back(r.wall_s / 2);
      send.push_back((r.send_s + b.send_s + io / 2) / 2);
      receive.push_back((r.receive_s + b.receive_s + io / 2) / 2);
    }
    out.push_back({transport, encoded[s], median(wall), median(send), median(receive), repetitions});
  }
  return out;
}

}  // namespace pstwin::cli
