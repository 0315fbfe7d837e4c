// A ZeroMQ receiver's work on a 10M-value message (40 MB) that came in 40 values parts of 1 MiB
// (wire version 7): gathering the parts into one vector, with the frame checksum checked
// (between machines) or not (CURVE, nodes of one machine). "Fused" is what ZmqEnv does
// (decode_split_gathering: each stretch hashed right after it is copied); "two passes" is what it
// did before: gather everything, then hash the gathered vector. Reported as bytes per second of
// values; the ratio of the two is what the fusion saves (docs/TRANSPORTS.md, "Nodes of one
// machine"). Run: build/bench/receive_path_bench --benchmark_min_time=1
#include <benchmark/benchmark.h>

#include <cstring>
#include <span>
#include <vector>

#include "runtime/codec.h"

namespace pstwin {
namespace {

constexpr std::size_t kValues = 10'000'000;
constexpr std::size_t kPartBytes = 1024 * 1024;

struct Received {
  std::vector<std::uint8_t> head;
  std::vector<std::vector<std::uint8_t>> parts;  // each its own allocation, as libzmq's are
  std::vector<std::span<const std::uint8_t>> pieces;
};

Received received(FrameChecksum checksum) {
  Message m;
  m.header.type = MsgType::kPush;
  m.values.resize(kValues);
  for (std::size_t i = 0; i < kValues; ++i) m.values[i] = static_cast<float>(i % 1000) * 0.5f;
  const auto* values = reinterpret_cast<const std::uint8_t*>(m.values.data());
  const std::size_t values_size = values_section_size(m);
  Received r;
  r.head.resize(encoded_size(m) - values_size);
  encode_split_into(m, r.head.data(), r.head.size(), values, checksum);
  for (std::size_t at = 0; at < values_size; at += kPartBytes)
    r.parts.emplace_back(values + at, values + std::min(at + kPartBytes, values_size));
  for (const auto& p : r.parts) r.pieces.emplace_back(p.data(), p.size());
  return r;
}

// What ZmqEnv does now: one pass, hashing each stretch as it is copied (or no hashing at all).
void BM_GatherFused(benchmark::State& state) {
  const auto checksum = state.range(0) ? FrameChecksum::kVerify : FrameChecksum::kSkip;
  const Received r = received(checksum);
  std::vector<float> gather(kValues);  // the receiver's spare vector: pages already in memory
  Message out;
  for (auto _ : state) {
    decode_split_gathering(r.head.data(), r.head.size(), r.pieces, gather, out, kDefaultMaxMessageBytes,
                           kValues, checksum);
    gather.swap(out.values);  // back to the spare, as the role's recycled vector would come
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kValues * sizeof(float)));
}
BENCHMARK(BM_GatherFused)->Arg(1)->Arg(0)->UseRealTime()->Unit(benchmark::kMillisecond);

// What it did before: gather every part, then decode the gathered vector (its checksum a second
// pass over the 40 MB).
void BM_GatherThenHash(benchmark::State& state) {
  const Received r = received(FrameChecksum::kVerify);
  std::vector<float> gather(kValues);
  Message out;
  for (auto _ : state) {
    gather.clear();
    for (const auto& p : r.parts) {
      const auto* first = reinterpret_cast<const float*>(p.data());
      gather.insert(gather.end(), first, first + p.size() / sizeof(float));
    }
    decode_split_adopting(r.head.data(), r.head.size(), gather, out, kDefaultMaxMessageBytes, kValues,
                          FrameChecksum::kVerify);
    gather.swap(out.values);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * kValues * sizeof(float)));
}
BENCHMARK(BM_GatherThenHash)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace pstwin

BENCHMARK_MAIN();
