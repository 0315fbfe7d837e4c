// Timing pstwin's own transports for `pstwin calibrate`: a pair of Envs (no scheduler, no roles)
// that echo messages of a sweep of sizes back and forth, so the figures include the codec, the
// checksum, CURVE where asked and the transport's own framing, as a job pays them.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

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
/// evenly between sending and receiving. REQUIRES transport in measurable_transports(), sizes
/// each >= 100 and repetitions >= 1. Throws std::runtime_error when the transport cannot start
/// (no loopback) or a message does not come back within 60 s.
std::vector<TransportSample> measure_transport(const std::string& transport, const std::vector<std::size_t>& sizes,
                                               int repetitions);

}  // namespace pstwin::cli
