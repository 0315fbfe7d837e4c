// fuzz_seeds OUT_DIR: writes a small seed corpus for each fuzz target into OUT_DIR/<target>/,
// made from the inputs the project's own tests use (tests/codec_test.cc, data_test.cc,
// ratings_test.cc, checkpoint_test.cc, membership_test.cc) and its scenarios/ folder. Seeds give
// libFuzzer valid inputs to mutate from, so it reaches the checks past the headers quickly.
// bench/fuzz.sh runs it when a target's corpus folder is empty.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <vector>

#include "runtime/checkpoint/shard_checkpoint.h"
#include "runtime/codec.h"
#include "runtime/roles/membership.h"

namespace fs = std::filesystem;
using Bytes = std::vector<std::uint8_t>;

namespace {

fs::path out_root;

void seed(const std::string& target, const std::string& name, const Bytes& bytes) {
  const fs::path dir = out_root / target;
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

void seed(const std::string& target, const std::string& name, const std::string& text) {
  seed(target, name, Bytes(text.begin(), text.end()));
}

Bytes cat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const Bytes& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

void codec_seeds() {
  pstwin::Message push;
  push.header.type = pstwin::MsgType::kPush;
  push.header.epoch = 3;
  push.keys = {2, 5, 9, 1000};
  push.values = {1.5f, -2.0f, -0.0f, 3.25f, 1e-30f, 7.0f};
  push.lengths = {1, 1, 2, 1};
  push.data = std::string("{\"role\":\"server\"}\0bin\xff", 21);
  seed("codec_decode", "push", pstwin::encode(push));

  pstwin::Message reply;  // contiguous keys: encoded as a range
  reply.header.type = pstwin::MsgType::kPullReply;
  reply.keys = {10, 11, 12};
  reply.values = {0.5f, 0.25f, 0.125f};
  seed("codec_decode", "range", pstwin::encode(reply));

  pstwin::Message beat;
  beat.header.type = pstwin::MsgType::kHeartbeat;
  seed("codec_decode", "heartbeat", pstwin::encode(beat));

  pstwin::Message reg;
  reg.header.type = pstwin::MsgType::kRegister;
  reg.data = R"({"role":"worker","address":"tcp://127.0.0.1:5555"})";
  seed("codec_decode", "register", pstwin::encode(reg));

  // Compressed values (wire version 5): one push of 300 values (two int8/onebit blocks) per format.
  std::vector<float> grad(300);
  for (std::size_t i = 0; i < grad.size(); ++i) grad[i] = static_cast<float>(i % 7) - 3.0f;
  for (std::uint8_t f = 1; f <= pstwin::kMaxValueFormat; ++f) {
    pstwin::Message packed;
    packed.header.type = pstwin::MsgType::kPush;
    packed.keys = {40};
    packed.value_format = static_cast<pstwin::ValueFormat>(f);
    packed.packed_count = grad.size();
    pstwin::compress({.format = packed.value_format, .topk_ratio = 0.05, .seed = 1}, grad.data(), grad.size(),
                     packed.packed);
    seed("codec_decode", "packed-" + std::string(pstwin::value_format_name(packed.value_format)),
         pstwin::encode(packed));
  }
}

void membership_seeds() {
  // One shape byte (servers - 1 low nibble, workers - 1 high nibble), the epoch, the body.
  auto one = [](const std::string& name, std::uint32_t servers, std::uint32_t workers,
                std::uint32_t replication, std::uint32_t epoch, std::vector<std::uint32_t> dead) {
    pstwin::Membership m = pstwin::initial_membership(servers, servers, workers, replication, 1);
    m.epoch = epoch;
    for (const auto w : dead) m.dead_workers[w] = true;
    const std::string body = m.to_message().data;
    Bytes b = {static_cast<std::uint8_t>((servers - 1) | (workers - 1) << 4),
               static_cast<std::uint8_t>(epoch), static_cast<std::uint8_t>(epoch >> 8),
               static_cast<std::uint8_t>(epoch >> 16), static_cast<std::uint8_t>(epoch >> 24)};
    b.insert(b.end(), body.begin(), body.end());
    seed("membership", name, b);
  };
  one("initial", 3, 4, 2, 0, {});
  one("failover", 2, 2, 2, 5, {1});
  one("single", 1, 1, 1, 1, {});
}

void libsvm_seeds() {
  seed("libsvm", "binary", "+1 1:0.5 3:2\n-1 2:1\n");
  seed("libsvm", "labels", "0 1:1\n1 2:1\n1.0 3:-2.5e-1\n+1 1:+3\n");
  seed("libsvm", "multiclass", "3 1:1\n0 2:1\n7 5:1\n");
  seed("libsvm", "comments", "# header\n\n+1 1:1 # trailing comment\n   \n-1 2:2 \t \n#only\n\t\n");
  seed("libsvm", "crlf", "\xEF\xBB\xBF+1 1:1 2:2\r\n-1 3:3\r\n\r\n+1 10:0");
}

Bytes be32(std::uint32_t v) {
  return {static_cast<std::uint8_t>(v >> 24), static_cast<std::uint8_t>(v >> 16),
          static_cast<std::uint8_t>(v >> 8), static_cast<std::uint8_t>(v)};
}

void idx_seeds() {
  // Three 2x2 images and their labels (tests/data_test.cc). idx_fuzz takes the images' length
  // from the input's last byte (inputs under 256 bytes), so it ends each seed.
  const Bytes images = cat({be32(0x803), be32(3), be32(2), be32(2), {0, 255, 51, 102, 1, 2, 3, 4, 255, 255, 0, 0}});
  const Bytes labels = cat({be32(0x801), be32(3), {0, 9, 3}});
  seed("idx", "tiny", cat({images, labels, {static_cast<std::uint8_t>(images.size())}}));
  const Bytes one = cat({be32(0x803), be32(1), be32(1), be32(3), {7, 8, 9}});
  seed("idx", "one", cat({one, be32(0x801), be32(1), {1}, {static_cast<std::uint8_t>(one.size())}}));
}

void ratings_seeds() {
  seed("ratings_csv", "movielens",
       "userId,movieId,rating,timestamp\n7,100,4.0,964982703\n3,20,3.5,964981247\n"
       "7,20,5,964982224\n-2,5000000000,0.5,1\n");
  seed("ratings_csv", "columns", "title,rating,movieId,extra,userId\nHeat,4.5,6,x,1\nUp,2,7,y,1\n");
  seed("ratings_csv", "quoted",
       "\"userId\",\"title\",movieId,rating\n1,\"Lock, Stock and Two Smoking Barrels\",10,\"4.0\"\n"
       "2,\"The \"\"Great\"\" Escape\",11,3\n3,\"two\nlines\",12,1\n4,\"\",13,2\n");
  seed("ratings_csv", "crlf", "\xEF\xBB\xBFuserId,movieId,rating\r\n1,2,3.5\r\n\r\n1,\"3\",4\r\n\n2,2, 1 ");
}

void checkpoint_seeds() {
  // The first byte chooses: 0 a range file as is, 2 with its CRC made valid, 1 a COMPLETE marker.
  pstwin::ShardCheckpoint c;
  c.range = 1;
  c.key_begin = 4;
  c.key_count = 2;
  c.width = 2;
  c.clock = 3;
  c.params = {0.5f, -1.0f, 2.0f, 0.0f};
  seed("checkpoint", "params", cat({{0}, pstwin::encode_checkpoint(c)}));
  c.optimizer.first = {0.1f, 0.2f, 0.3f, 0.4f};
  c.optimizer.second = {1.0f, 2.0f, 3.0f, 4.0f};
  c.optimizer.steps = 9;
  seed("checkpoint", "adam", cat({{2}, pstwin::encode_checkpoint(c)}));
  pstwin::ShardCheckpoint synthetic;  // timing-only model: no floats
  synthetic.key_count = 1000;
  seed("checkpoint", "synthetic", cat({{0}, pstwin::encode_checkpoint(synthetic)}));
  const std::string marker = R"({"clock": 3, "ranges": 2, "time_s": 1.5, "params_sha256": "ab12"})";
  seed("checkpoint", "marker", cat({{1}, Bytes(marker.begin(), marker.end())}));
}

void scenario_seeds() {
  // The project's scenarios, and one with --set overrides after a NUL byte.
  for (const auto& entry : fs::directory_iterator(fs::path(PSTWIN_SOURCE_DIR) / "scenarios")) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    seed("scenario", entry.path().stem().string(), text);
    if (entry.path().stem() == "quickstart")
      seed("scenario", "quickstart-set", text + std::string(1, '\0') +
                                             "/cluster/workers=3\n/consistency/-={\"mode\":\"ssp\",\"staleness\":1}");
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_seeds OUT_DIR\n");
    return 2;
  }
  out_root = argv[1];
  codec_seeds();
  membership_seeds();
  libsvm_seeds();
  idx_seeds();
  ratings_seeds();
  checkpoint_seeds();
  scenario_seeds();
  return 0;
}
