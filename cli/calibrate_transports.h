// Timing pstwin's own transports for `pstwin calibrate`: a pair of Envs (no scheduler, no roles)
// that echo messages of a sweep of sizes back and forth, so the figures include the codec, the
// checksum, CURVE where asked and the transport's own framing, as a job pays them.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "runtime/env.h"

namespace pstwin::cli {

/// One message size of one transport, measured `repetitions` times.
struct TransportSample {
  std::string transport;        ///< "inproc", "zmq" or "zmq-curve"
  double bytes = 0;             ///< the encoded message (header + payload), as sent
  double seconds = 0;           ///< median one-way time: half a round trip of two such messages
  double send_cpu_s = 0;        ///< median host CPU seconds one node spends sending one message
  double receive_cpu_s = 0;     ///< median host CPU seconds one node spends receiving one
  int repetitions = 0;
};

/// The transports calibrate can measure in this build, in the order it measures them:
/// "inproc", "zmq" (ZeroMQ over loopback TCP, --insecure) and "zmq-curve" (the same under CURVE,
/// launch's default). "ucx" is not among them until that transport is built: the place to add it
/// is measure_transport's switch and this list.
std::vector<std::string> measurable_transports();

/// Echoes messages of about each size in `sizes` (encoded bytes; a kPush of float values, whose
/// exact encoded size is what is reported) between two nodes of `transport`, `repetitions` round
/// trips each after one unmeasured round trip, and returns one sample per size. Wall time is a
/// steady clock; CPU time is each node thread's CLOCK_THREAD_CPUTIME_ID around its send() (encode,
/// checksum, hand-over) and its recv() (wait, decode, checks), plus the process CPU the
/// transport's own I/O threads use meanwhile (getrusage, less the two node threads), shared
/// evenly between sending and receiving (combine_rounds). REQUIRES transport in
/// measurable_transports(), sizes each >= 100 and repetitions >= 1. Throws std::runtime_error
/// when the transport cannot start (no loopback) or a message does not come back within 60 s.
std::vector<TransportSample> measure_transport(const std::string& transport, const std::vector<std::size_t>& sizes,
                                               int repetitions);

/// How long either side of an echo waits for the next message before it gives up (seconds).
inline constexpr double kEchoReplyTimeout_s = 60.0;

/// One measured round trip as the driving node saw it (seconds): the whole round trip's wall
/// time, its thread's CPU in send() and in recv(), and its process's CPU over the round.
struct DriverRound {
  double wall_s = 0;
  double send_s = 0;
  double receive_s = 0;
  double process_s = 0;
};

/// One round trip as the echoing node saw it (CPU seconds): its thread in recv() and in send(),
/// and, when it runs in a process of its own, that process's CPU over the round (else 0: the
/// driver's process_s holds both nodes').
struct EchoRound {
  double receive_s = 0;
  double send_s = 0;
  double process_s = 0;
};

/// The driver's side of an echo: what it sent and how each round went.
struct DriverRounds {
  std::vector<double> encoded;                  ///< per size: the encoded message's bytes
  std::vector<std::vector<DriverRound>> rounds;  ///< per size: the `repetitions` kept rounds
};

/// Node `env` drives an echo with node `to`: for each size, one unkept round trip and then
/// `repetitions` kept ones, each a message of about that size (a kPush of float values) sent to
/// `to` and awaited back; a kStop to `to` ends it (sent on failure too). `after_size` (may be
/// empty) is called with each size's index and the rounds so far once that size is done. Throws std::runtime_error when a
/// message does not come back within kEchoReplyTimeout_s. REQUIRES sizes each >= 100,
/// repetitions >= 1.
DriverRounds drive_echo(Env& env, NodeId to, const std::vector<std::size_t>& sizes, int repetitions,
                        const std::function<void(std::size_t, const DriverRounds&)>& after_size = {});

/// Node `env`'s side of an echo: every message it receives goes back to node `to`, until a
/// kStop. Returns one EchoRound per message echoed, warm-up rounds included, in order. With
/// `own_process`, process_s is this process's CPU from the start of one recv() to the start of
/// the next (the last round's: to the kStop's arrival), so that the I/O threads' work on the
/// message it just sent, done while it already waits, counts. Throws std::runtime_error when
/// nothing arrives for kEchoReplyTimeout_s.
std::vector<EchoRound> echo_back(Env& env, NodeId to, bool own_process);

/// The samples of one transport from both sides' rounds: per size, the median of the one-way
/// wall time (half a round trip), of send CPU and of receive CPU, where each round's send CPU is
/// the mean over the two nodes of thread send time plus half the round's I/O remainder (both
/// processes' CPU less the four thread times, at least 0), and receive CPU likewise. `echo`
/// lines up with the driver's rounds with one warm-up per size first. Throws
/// std::invalid_argument when `echo` does not have sizes * (repetitions + 1) rounds or a size
/// lacks `repetitions` rounds.
std::vector<TransportSample> combine_rounds(const std::string& transport, const DriverRounds& driver,
                                            const std::vector<EchoRound>& echo, int repetitions);

}  // namespace pstwin::cli
