// The ceilings bench/transports.sh sets pstwin's transports against, measured on this machine:
// a memcpy of a push + pull's bytes (what an in-process transport cannot beat), and a bare
// ZeroMQ DEALER/ROUTER round trip over loopback TCP of a push's and a pull reply's bytes, with no
// codec, roles or checks, between two peers with their own contexts as pstwin's worker and
// server are (what a push + pull over ZeroMQ cannot beat), the same for 10M values sent as
// pstwin sends them, in parts lent to ZeroMQ without a copy (what libzmq itself can do here, with
// and without the receiver's gather into one buffer), and the cipher CURVE runs on every frame,
// libsodium's XSalsa20-Poly1305, alone (what a push + pull under CURVE cannot beat on this
// CPU, whatever the network). Run with an argument filter, e.g.
//   transport_ceilings_bench --benchmark_filter=Memcpy/40000000
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <sodium.h>
#include <sys/resource.h>
#include <zmq.hpp>

#include "cli/allocator_tuning.h"
#include "runtime/codec.h"

namespace {

/// Copies state.range(0) bytes twice per iteration (a push and a pull), into buffers touched
/// once before timing, as a transport with reused buffers would.
void BM_Memcpy(benchmark::State& state) {
  const auto bytes = static_cast<std::size_t>(state.range(0));
  std::vector<std::uint8_t> a(bytes, 1), b(bytes, 2);
  for (auto _ : state) {
    std::memcpy(b.data(), a.data(), bytes);
    benchmark::DoNotOptimize(b.data());
    std::memcpy(a.data(), b.data(), bytes);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * 2 * bytes));
}
BENCHMARK(BM_Memcpy)->Arg(4'000)->Arg(400'000)->Arg(40'000'000)->UseRealTime();

/// The size of a push, and of its pull reply, of `values` float32 values as pstwin frames them
/// (header, values, checksum: runtime/codec.h); 4,116 bytes for 1K values.
std::size_t push_frame_bytes(std::size_t values) {
  pstwin::Message m;
  m.header.type = pstwin::MsgType::kPush;
  m.virtual_values = values;
  return pstwin::encoded_size(m);
}

/// User + system CPU seconds of this process so far, all threads.
double process_cpu_s() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

/// Times round trips between two peers set up as pstwin's worker and server are: a DEALER and a
/// ROUTER over loopback TCP that do not share a ZeroMQ context (each has its own I/O thread),
/// each waiting in a blocking recv, no polling, ZeroMQ's default socket options. The ROUTER runs
/// `answer(router)` on a thread of its own until it returns false; each iteration runs
/// `round_trip(dealer)`, which returns the bytes of the reply (checked against `bytes`, the size
/// of each message). A round trip before timing brings the connection up; an empty message from
/// the DEALER then ends the ROUTER's loop. Counts 2 x `bytes` per iteration, and the CPU time of
/// every thread (both peers and both I/O threads), to set against a pstwin job's.
template <typename Answer, typename RoundTrip>
void time_round_trips(benchmark::State& state, std::size_t bytes, Answer answer, RoundTrip round_trip) {
  zmq::context_t server_ctx, worker_ctx;
  zmq::socket_t router(server_ctx, zmq::socket_type::router);
  router.set(zmq::sockopt::linger, 0);
  router.bind("tcp://127.0.0.1:*");
  const std::string endpoint = router.get(zmq::sockopt::last_endpoint);
  std::thread server([&router, &answer] {
    while (answer(router)) {
    }
  });
  zmq::socket_t dealer(worker_ctx, zmq::socket_type::dealer);
  dealer.set(zmq::sockopt::linger, 0);
  dealer.connect(endpoint);
  std::size_t got = round_trip(dealer);
  const double cpu_before = process_cpu_s();
  for (auto _ : state) got = round_trip(dealer);
  state.counters["process_cpu_us"] = benchmark::Counter(
      (process_cpu_s() - cpu_before) * 1e6 / static_cast<double>(state.iterations()));
  dealer.send(zmq::message_t(), zmq::send_flags::none);
  server.join();
  if (got != bytes) state.SkipWithError("the reply has the wrong size");
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * 2 * bytes));
}

/// The floor of a push + pull over ZeroMQ: the best plain ZeroMQ code for one request of
/// push_frame_bytes(state.range(0)) bytes from a DEALER and an equal reply from a ROUTER, each
/// sent from its peer's own buffer as one part (which ZeroMQ copies), peers as time_round_trips
/// sets them up; state.range(0) counts values, as transports.sh's rows do.
void BM_ZmqDealerRouterRoundTrip(benchmark::State& state) {
  const std::size_t bytes = push_frame_bytes(static_cast<std::size_t>(state.range(0)));
  std::vector<std::uint8_t> reply(bytes, 9), payload(bytes, 7);
  zmq::message_t id, request, in;
  time_round_trips(
      state, bytes,
      [&](zmq::socket_t& router) {
        if (!router.recv(id) || !router.recv(request) || request.size() == 0) return false;
        router.send(id, zmq::send_flags::sndmore);
        router.send(zmq::buffer(reply), zmq::send_flags::none);
        return true;
      },
      [&](zmq::socket_t& dealer) {
        dealer.send(zmq::buffer(payload), zmq::send_flags::none);
        (void)dealer.recv(in);
        return in.size();
      });
}
BENCHMARK(BM_ZmqDealerRouterRoundTrip)->Arg(1'000)->Arg(100'000)->Arg(10'000'000)->UseRealTime();

/// Sends bytes[0..size) as one ZeroMQ message of parts of `part` bytes but the last, each lent to
/// ZeroMQ where it lies (zmq_msg_init_data with no free function: the caller keeps the bytes
/// until the socket is closed), after a copy of `identity` when it is not null (a ROUTER's
/// routing identity).
void send_lent_parts(zmq::socket_t& socket, const zmq::message_t* identity, const std::uint8_t* bytes,
                     std::size_t size, std::size_t part) {
  if (identity != nullptr) {
    zmq::message_t copy(identity->data(), identity->size());
    socket.send(copy, zmq::send_flags::sndmore);
  }
  for (std::size_t at = 0; at < size; at += part) {
    const std::size_t n = std::min(part, size - at);
    zmq::message_t lent(const_cast<std::uint8_t*>(bytes + at), n, nullptr, nullptr);
    socket.send(lent, at + n < size ? zmq::send_flags::sndmore : zmq::send_flags::none);
  }
}

/// Receives every part of the message arriving on `socket` (after its routing identity, on a
/// ROUTER) and, when `gather` is not null, copies them in order into *gather (its capacity
/// reused), as pstwin's receiver gathers values parts into one vector. Returns the bytes
/// received (0 when the recv failed or the message was one empty part).
std::size_t receive_parts(zmq::socket_t& socket, std::vector<std::uint8_t>* gather) {
  std::vector<zmq::message_t> parts;
  do {
    zmq::message_t part;
    if (!socket.recv(part)) return 0;
    parts.push_back(std::move(part));
  } while (socket.get(zmq::sockopt::rcvmore));
  std::size_t total = 0;
  if (gather) gather->clear();
  for (const zmq::message_t& p : parts) {
    total += p.size();
    if (gather) {
      const auto* b = static_cast<const std::uint8_t*>(p.data());
      gather->insert(gather->end(), b, b + p.size());
    }
  }
  return total;
}

/// Sends bytes[0..size) as messages of one part each, of `part` bytes but the last, lent as
/// send_lent_parts lends them (each after a copy of `identity` when it is not null): the shape of
/// a streamed values section (net/values_stream.h), less its small header and marker frames.
void send_lent_stream(zmq::socket_t& socket, const zmq::message_t* identity, const std::uint8_t* bytes,
                      std::size_t size, std::size_t part) {
  for (std::size_t at = 0; at < size; at += part) {
    if (identity != nullptr) {
      zmq::message_t copy(identity->data(), identity->size());
      socket.send(copy, zmq::send_flags::sndmore);
    }
    const std::size_t n = std::min(part, size - at);
    zmq::message_t lent(const_cast<std::uint8_t*>(bytes + at), n, nullptr, nullptr);
    socket.send(lent, zmq::send_flags::none);
  }
}

/// Receives a stream send_lent_stream sent, `size` bytes in all, copying each part into `gather`
/// (its capacity reused) as soon as it arrives, while the next is on its way (a DEALER: no
/// routing identities). Returns the bytes received (0 when a recv failed).
std::size_t receive_stream(zmq::socket_t& socket, std::size_t size, std::vector<std::uint8_t>& gather) {
  gather.clear();
  zmq::message_t part;
  while (gather.size() < size) {
    if (!socket.recv(part)) return 0;
    const auto* b = static_cast<const std::uint8_t*>(part.data());
    gather.insert(gather.end(), b, b + part.size());
  }
  return gather.size();
}

/// What libzmq itself can do with a push and its pull reply of state.range(0) float32 values
/// sent the way pstwin sends them (net/zmq_parts.h): each message's push_frame_bytes as parts
/// of state.range(1) bytes, lent to ZeroMQ with zmq_msg_init_data (no copy on either send), the
/// peers as time_round_trips sets them up. With state.range(2) = 1 each receiver also copies its
/// parts, in order, into one reused buffer, as pstwin's receiver gathers values parts into one
/// vector (decode_parts): the difference between the two is what that copy costs a push + pull.
/// With state.range(2) = 2 each part goes as a message of its own and each receiver copies it
/// as it arrives, overlapping the copy with the parts still on their way (a streamed values
/// section, wire version 8: net/values_stream.h).
/// Why this as well as BM_ZmqDealerRouterRoundTrip: that one sends one part, which ZeroMQ copies,
/// and so understates what libzmq can do with a 40 MB message on this machine.
void BM_ZmqLentPartsRoundTrip(benchmark::State& state) {
  const std::size_t bytes = push_frame_bytes(static_cast<std::size_t>(state.range(0)));
  const auto part = static_cast<std::size_t>(state.range(1));
  const bool gather = state.range(2) != 0;
  const bool stream = state.range(2) == 2;
  // Written once, before any send, and kept until both sockets are closed (time_round_trips
  // closes them), so ZeroMQ may hold them as long as it likes.
  const std::vector<std::uint8_t> reply(bytes, 9), payload(bytes, 7);
  std::vector<std::uint8_t> server_into, worker_into;
  server_into.reserve(bytes);
  worker_into.reserve(bytes);
  zmq::message_t id;
  time_round_trips(
      state, bytes,
      [&](zmq::socket_t& router) {
        if (stream) {
          // The first part comes with the identity; an empty one ends the loop.
          zmq::message_t first, next_id, next;
          if (!router.recv(id) || !router.recv(first) || first.size() == 0) return false;
          const auto* b = static_cast<const std::uint8_t*>(first.data());
          server_into.assign(b, b + first.size());
          while (server_into.size() < bytes) {
            if (!router.recv(next_id) || !router.recv(next)) return false;
            b = static_cast<const std::uint8_t*>(next.data());
            server_into.insert(server_into.end(), b, b + next.size());
          }
          send_lent_stream(router, &id, reply.data(), reply.size(), part);
          return true;
        }
        if (!router.recv(id) || receive_parts(router, gather ? &server_into : nullptr) == 0) return false;
        send_lent_parts(router, &id, reply.data(), reply.size(), part);
        return true;
      },
      [&](zmq::socket_t& dealer) {
        if (stream) {
          send_lent_stream(dealer, nullptr, payload.data(), payload.size(), part);
          return receive_stream(dealer, bytes, worker_into);
        }
        send_lent_parts(dealer, nullptr, payload.data(), payload.size(), part);
        return receive_parts(dealer, gather ? &worker_into : nullptr);
      });
}
BENCHMARK(BM_ZmqLentPartsRoundTrip)
    ->Args({10'000'000, 1 << 20, 0})
    ->Args({10'000'000, 4 << 20, 0})
    ->Args({10'000'000, 1 << 20, 1})
    ->Args({10'000'000, 4 << 20, 1})
    ->Args({10'000'000, 1 << 20, 2})
    ->UseRealTime();

/// What CURVE does to a push and its pull reply of state.range(0) bytes, without the network:
/// each message encrypted once by its sender and decrypted once by its receiver
/// (crypto_box_easy_afternm and crypto_box_open_easy_afternm, as libzmq's CURVE calls them).
void BM_CurveCipher(benchmark::State& state) {
  const auto bytes = static_cast<std::size_t>(state.range(0));
  if (sodium_init() < 0) {
    state.SkipWithError("sodium_init failed");
    return;
  }
  unsigned char pk[crypto_box_PUBLICKEYBYTES], sk[crypto_box_SECRETKEYBYTES];
  unsigned char key[crypto_box_BEFORENMBYTES], nonce[crypto_box_NONCEBYTES] = {};
  crypto_box_keypair(pk, sk);
  if (crypto_box_beforenm(key, pk, sk) != 0) {
    state.SkipWithError("crypto_box_beforenm failed");
    return;
  }
  std::vector<unsigned char> plain(bytes, 7), boxed(bytes + crypto_box_MACBYTES), opened(bytes);
  for (auto _ : state) {
    for (int message = 0; message < 2; ++message) {  // the push, then the pull reply
      crypto_box_easy_afternm(boxed.data(), plain.data(), bytes, nonce, key);
      if (crypto_box_open_easy_afternm(opened.data(), boxed.data(), boxed.size(), nonce, key) != 0)
        state.SkipWithError("a box did not open");
    }
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * 2 * bytes));
}
BENCHMARK(BM_CurveCipher)->Arg(4'000)->Arg(400'000)->Arg(40'000'000)->UseRealTime();

}  // namespace

// With the malloc settings launch and node make (cli/allocator_tuning.h), so that the parts libzmq
// receives are reused from the heap here too: with glibc's defaults each was fresh memory, page
// faulted in, and the lent-parts round trips ran slower than a whole pstwin push + pull.
int main(int argc, char** argv) {
  pstwin::cli::tune_allocator();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
