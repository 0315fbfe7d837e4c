// The ceilings bench/transports.sh sets pstwin's transports against, measured on this machine:
// a memcpy of a push + pull's bytes (what an in-process transport cannot beat), and a bare
// ZeroMQ DEALER/ROUTER round trip over loopback TCP of a push's and a pull reply's bytes, with no
// codec, roles or checks, between two peers with their own contexts as pstwin's worker and
// server are (what a push + pull over ZeroMQ cannot beat), and the cipher CURVE runs on every frame,
// libsodium's XSalsa20-Poly1305, alone (what a push + pull under CURVE cannot beat on this
// CPU, whatever the network). Run with an argument filter, e.g.
//   transport_ceilings_bench --benchmark_filter=Memcpy/40000000
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <sodium.h>
#include <sys/resource.h>
#include <zmq.hpp>

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

/// The floor of a push + pull over ZeroMQ: the best plain ZeroMQ code for one request of
/// push_frame_bytes(state.range(0)) bytes from a DEALER and an equal reply from a ROUTER, over
/// loopback TCP. Set up as pstwin's worker and server are: two peers that do not share a
/// ZeroMQ context (each has its own I/O thread), each sending from its own buffer and waiting in
/// a blocking recv, no polling, ZeroMQ's default socket options. The ROUTER runs on a thread of
/// its own; state.range(0) counts values, as transports.sh's rows do.
void BM_ZmqDealerRouterRoundTrip(benchmark::State& state) {
  const std::size_t bytes = push_frame_bytes(static_cast<std::size_t>(state.range(0)));
  zmq::context_t server_ctx, worker_ctx;
  zmq::socket_t router(server_ctx, zmq::socket_type::router);
  router.set(zmq::sockopt::linger, 0);
  router.bind("tcp://127.0.0.1:*");
  const std::string endpoint = router.get(zmq::sockopt::last_endpoint);
  // The "server": answers each request with an equal-sized reply from its own buffer, until an
  // empty request says the benchmark is over.
  std::thread server([&router, bytes] {
    std::vector<std::uint8_t> reply(bytes, 9);
    zmq::message_t id, in;
    for (;;) {
      if (!router.recv(id) || !router.recv(in) || in.size() == 0) return;
      router.send(id, zmq::send_flags::sndmore);
      router.send(zmq::buffer(reply), zmq::send_flags::none);
    }
  });
  zmq::socket_t dealer(worker_ctx, zmq::socket_type::dealer);
  dealer.set(zmq::sockopt::linger, 0);
  dealer.connect(endpoint);
  std::vector<std::uint8_t> payload(bytes, 7);
  zmq::message_t in;
  // One untimed round trip: the connection is up before timing starts.
  dealer.send(zmq::buffer(payload), zmq::send_flags::none);
  (void)dealer.recv(in);
  const double cpu_before = process_cpu_s();
  for (auto _ : state) {
    dealer.send(zmq::buffer(payload), zmq::send_flags::none);
    (void)dealer.recv(in);
  }
  // CPU of every thread (both peers and both I/O threads), to set against a pstwin job's.
  state.counters["process_cpu_us"] = benchmark::Counter(
      (process_cpu_s() - cpu_before) * 1e6 / static_cast<double>(state.iterations()));
  dealer.send(zmq::message_t(), zmq::send_flags::none);  // ends the server's loop
  server.join();
  if (in.size() != bytes) state.SkipWithError("the reply has the wrong size");
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * 2 * bytes));
}
BENCHMARK(BM_ZmqDealerRouterRoundTrip)->Arg(1'000)->Arg(100'000)->Arg(10'000'000)->UseRealTime();

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

BENCHMARK_MAIN();
