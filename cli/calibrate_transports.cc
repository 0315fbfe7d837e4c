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

}  // namespace

std::vector<std::string> measurable_transports() { return {"inproc", "zmq", "zmq-curve"}; }

std::vector<EchoRound> echo_back(Env& env, NodeId to, bool own_process) {
  std::vector<EchoRound> rounds;
  for (;;) {
    const double p0 = own_process ? process_cpu() : 0.0;
    const double t0 = thread_cpu();
    std::optional<Message> m = env.recv(kEchoReplyTimeout_s);
    const double t1 = thread_cpu();
    if (!m)
      throw std::runtime_error("the echoing node received nothing for " + std::to_string(int(kEchoReplyTimeout_s)) +
                               " s");
    // The previous round ends where this recv() began; the last one where the kStop arrived.
    if (own_process && !rounds.empty()) rounds.back().process_s = p0 - rounds.back().process_s;
    if (m->header.type == MsgType::kStop) {
      if (own_process && !rounds.empty()) rounds.back().process_s += process_cpu() - p0;
      return rounds;
    }
    env.send(to, std::move(*m));
    // process_s holds the round's start until the next recv() begins.
    rounds.push_back({t1 - t0, thread_cpu() - t1, p0});
  }
}

DriverRounds drive_echo(Env& env, NodeId to, const std::vector<std::size_t>& sizes, int repetitions,
                        const std::function<void(std::size_t, const DriverRounds&)>& after_size) {
  DriverRounds out;
  out.rounds.resize(sizes.size());
  out.encoded.resize(sizes.size());
  std::string failure;
  for (std::size_t s = 0; s < sizes.size() && failure.empty(); ++s) {
    Message m = message_of_about(sizes[s]);
    out.encoded[s] = static_cast<double>(encoded_size(m));
    for (int r = 0; r <= repetitions; ++r) {  // round 0 warms the buffers up and is not kept
      const double p0 = process_cpu();
      const double c0 = thread_cpu();
      const auto w0 = std::chrono::steady_clock::now();
      env.send(to, std::move(m));
      const double c1 = thread_cpu();
      std::optional<Message> back = env.recv(kEchoReplyTimeout_s);
      const auto w1 = std::chrono::steady_clock::now();
      const double c2 = thread_cpu();
      const double p1 = process_cpu();
      if (!back) {
        failure = "a message of " + std::to_string(sizes[s]) + " B did not come back within " +
                  std::to_string(int(kEchoReplyTimeout_s)) + " s";
        break;
      }
      m = std::move(*back);
      if (r > 0)
        out.rounds[s].push_back({std::chrono::duration<double>(w1 - w0).count(), c1 - c0, c2 - c1, p1 - p0});
    }
    if (failure.empty() && after_size) after_size(s, out);
  }
  Message stop;
  stop.header.type = MsgType::kStop;
  env.send(to, std::move(stop));
  if (!failure.empty()) throw std::runtime_error(failure);
  return out;
}

std::vector<TransportSample> combine_rounds(const std::string& transport, const DriverRounds& driver,
                                            const std::vector<EchoRound>& echo, int repetitions) {
  const std::size_t sizes = driver.encoded.size();
  if (echo.size() != sizes * static_cast<std::size_t>(repetitions + 1))
    throw std::invalid_argument("the echoing node reported " + std::to_string(echo.size()) + " rounds, not " +
                                std::to_string(sizes * static_cast<std::size_t>(repetitions + 1)) + " (" +
                                std::to_string(sizes) + " sizes of " + std::to_string(repetitions) +
                                " rounds and a warm-up each)");
  std::vector<TransportSample> out;
  std::size_t e = 0;
  for (std::size_t s = 0; s < sizes; ++s) {
    if (driver.rounds.at(s).size() != static_cast<std::size_t>(repetitions))
      throw std::invalid_argument("the driving node reported " + std::to_string(driver.rounds[s].size()) +
                                  " rounds of " + std::to_string(static_cast<long long>(driver.encoded[s])) +
                                  " B, not " + std::to_string(repetitions));
    ++e;  // the warm-up round
    std::vector<double> wall, send, receive;
    for (const DriverRound& r : driver.rounds[s]) {
      const EchoRound& b = echo[e++];
      // Both nodes sent one message and received one; whatever else their processes burned in
      // the round is the transport's I/O threads, half on the sending side and half on the
      // receiving.
      const double io =
          std::max(0.0, r.process_s + b.process_s - r.send_s - r.receive_s - b.send_s - b.receive_s);
      wall.push_back(r.wall_s / 2);
      send.push_back((r.send_s + b.send_s + io / 2) / 2);
      receive.push_back((r.receive_s + b.receive_s + io / 2) / 2);
    }
    out.push_back({transport, driver.encoded[s], median(wall), median(send), median(receive), repetitions});
  }
  return out;
}

std::vector<TransportSample> measure_transport(const std::string& transport, const std::vector<std::size_t>& sizes,
                                               int repetitions) {
  auto pair = make_pair(transport);
  std::vector<EchoRound> echoed;
  std::string echo_failure;
  std::thread echoer([&] {
    try {
      echoed = echo_back(*pair->b, 0, false);
    } catch (const std::exception& e) {
      echo_failure = e.what();
    }
  });
  DriverRounds driven;
  std::string failure;
  try {
    driven = drive_echo(*pair->a, 1, sizes, repetitions);
  } catch (const std::exception& e) {
    failure = e.what();
  }
  echoer.join();
  if (!failure.empty()) throw std::runtime_error(transport + ": " + failure);
  if (!echo_failure.empty()) throw std::runtime_error(transport + ": " + echo_failure);
  return combine_rounds(transport, driven, echoed, repetitions);
}

}  // namespace pstwin::cli
