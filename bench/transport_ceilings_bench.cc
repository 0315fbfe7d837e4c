// The ceilings bench/transports.sh sets pstwin's transports against, measured on this machine:
// a memcpy of a push + pull's bytes (what an in-process transport cannot beat), and a bare
// ZeroMQ DEALER/ROUTER round trip over loopback TCP with no codec, roles or checks (what a
// small push + pull over ZeroMQ cannot beat), and the cipher CURVE runs on every frame,
// libsodium's XSalsa20-Poly1305, alone (what a push + pull under CURVE cannot beat on this
// CPU, whatever the network). Run with an argument filter, e.g.
//   transport_ceilings_bench --benchmark_filter=Memcpy/40000000
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <sodium.h>
#include <zmq.hpp>

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

/// One request of state.range(0) bytes from a DEALER and an equal reply from a ROUTER, over
/// loopback TCP, both sockets driven from this thread (ZeroMQ's I/O threads do the transfer).
void BM_ZmqDealerRouterRoundTrip(benchmark::State& state) {
  const auto bytes = static_cast<std::size_t>(state.range(0));
  zmq::context_t ctx;
  zmq::socket_t router(ctx, zmq::socket_type::router), dealer(ctx, zmq::socket_type::dealer);
  router.bind("tcp://127.0.0.1:*");
  dealer.connect(router.get(zmq::sockopt::last_endpoint));
  std::vector<std::uint8_t> payload(bytes, 7);
  zmq::message_t id, in;
  for (auto _ : state) {
    dealer.send(zmq::buffer(payload), zmq::send_flags::none);
    (void)router.recv(id);
    (void)router.recv(in);
    router.send(id, zmq::send_flags::sndmore);
    router.send(zmq::buffer(payload), zmq::send_flags::none);
    (void)dealer.recv(in);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * 2 * bytes));
}
BENCHMARK(BM_ZmqDealerRouterRoundTrip)->Arg(4'000)->Arg(400'000)->Arg(40'000'000)->UseRealTime();

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
