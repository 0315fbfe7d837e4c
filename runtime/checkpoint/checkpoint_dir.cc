#include "runtime/checkpoint/checkpoint_dir.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <system_error>

#include "runtime/errors.h"

namespace pstwin {
namespace {

namespace fs = std::filesystem;

constexpr const char* kClockPrefix = "clock-";

void require_clock(std::int64_t clock) {
  if (clock < 0)
    throw std::invalid_argument("checkpoint clock must be >= 0, got " + std::to_string(clock));
}

void create_folder(const std::string& folder) {
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) throw CheckpointError("cannot create folder " + folder + ": " + ec.message());
}

std::vector<std::uint8_t> to_bytes(const std::string& s) { return {s.begin(), s.end()}; }

// The clock of a folder named clock-<digits>, or nullopt for any other name.
std::optional<std::int64_t> clock_of(const std::string& name) {
  const std::string prefix = kClockPrefix;
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0)
    return std::nullopt;
  std::int64_t clock = 0;
  for (std::size_t i = prefix.size(); i < name.size(); ++i) {
    const char ch = name[i];
    if (ch < '0' || ch > '9') return std::nullopt;
    if (clock > (std::numeric_limits<std::int64_t>::max() - (ch - '0')) / 10) return std::nullopt;
    clock = clock * 10 + (ch - '0');
  }
  return clock;
}

// The number of ranges the COMPLETE marker of `clock` records, after checking the marker.
std::uint32_t marker_ranges(const std::string& dir, std::int64_t clock) {
  const std::string path = complete_marker(dir, clock);
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw CheckpointError(path + ": missing: checkpoint " + std::to_string(clock) +
                          " is not complete");
  const std::vector<std::uint8_t> bytes = read_file(path);
  return parse_complete_marker(bytes.data(), bytes.size(), path, clock);
}

}  // namespace

std::uint32_t parse_complete_marker(const std::uint8_t* data, std::size_t size,
                                    const std::string& path, std::int64_t clock) {
  const nlohmann::json j = nlohmann::json::parse(data, data + size, nullptr, false);
  auto fail = [&](const std::string& why) { throw CheckpointError(path + ": " + why); };
  if (j.is_discarded() || !j.is_object()) fail("not a JSON object");
  const auto c = j.find("clock");
  if (c == j.end() || !c->is_number_integer() || c->get<std::int64_t>() != clock)
    fail("\"clock\" must be the integer " + std::to_string(clock) + ", the folder's clock");
  const auto r = j.find("ranges");
  if (r == j.end() || !r->is_number_unsigned() || r->get<std::uint64_t>() == 0 ||
      r->get<std::uint64_t>() > std::numeric_limits<std::uint32_t>::max())
    fail("\"ranges\" must be an integer in [1, 2^32)");
  return static_cast<std::uint32_t>(r->get<std::uint64_t>());
}

std::string checkpoint_clock_dir(const std::string& dir, std::int64_t clock) {
  require_clock(clock);
  return (fs::path(dir) / (kClockPrefix + std::to_string(clock))).string();
}

std::string checkpoint_file(const std::string& dir, std::int64_t clock, std::uint32_t range) {
  return (fs::path(checkpoint_clock_dir(dir, clock)) / ("range-" + std::to_string(range) + ".ckpt"))
      .string();
}

std::string complete_marker(const std::string& dir, std::int64_t clock) {
  return (fs::path(checkpoint_clock_dir(dir, clock)) / "COMPLETE").string();
}

void write_checkpoint(const std::string& dir, const ShardCheckpoint& c) {
  const std::string path = checkpoint_file(dir, c.clock, c.range);
  std::vector<std::uint8_t> bytes = encode_checkpoint(c);
  create_folder(checkpoint_clock_dir(dir, c.clock));
  write_file_atomically(path, bytes);
}

void mark_complete(const std::string& dir, std::int64_t clock, std::uint32_t ranges,
                   double time_s, const std::string& params_sha256) {
  const std::string path = complete_marker(dir, clock);
  if (ranges == 0) throw CheckpointError(path + ": a checkpoint needs at least one range");
  if (!std::isfinite(time_s))
    throw CheckpointError(path + ": time_s must be finite, got " + std::to_string(time_s));
  nlohmann::json j = {{"clock", clock}, {"ranges", ranges}, {"time_s", time_s}};
  if (!params_sha256.empty()) j["params_sha256"] = params_sha256;
  create_folder(checkpoint_clock_dir(dir, clock));
  write_file_atomically(path, to_bytes(j.dump() + "\n"));
}

std::optional<std::int64_t> latest_complete(const std::string& dir,
                                            std::vector<std::string>* skipped) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return std::nullopt;
  std::vector<std::int64_t> clocks;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_directory(ec)) continue;
    if (const auto c = clock_of(it->path().filename().string())) clocks.push_back(*c);
  }
  if (ec) throw CheckpointError("cannot list checkpoint folder " + dir + ": " + ec.message());
  std::sort(clocks.begin(), clocks.end(), std::greater<>());
  for (const std::int64_t clock : clocks) {
    try {
      load_checkpoint(dir, clock);
      return clock;
    } catch (const CheckpointError& e) {
      if (skipped)
        skipped->push_back("skipped " + checkpoint_clock_dir(dir, clock) + ": " + e.what());
    }
  }
  return std::nullopt;
}

std::vector<ShardCheckpoint> load_checkpoint(const std::string& dir, std::int64_t clock) {
  const std::uint32_t ranges = marker_ranges(dir, clock);
  std::vector<ShardCheckpoint> out;
  std::uint64_t next_key = 0;
  for (std::uint32_t r = 0; r < ranges; ++r) {
    const std::string path = checkpoint_file(dir, clock, r);
    std::error_code ec;
    if (!fs::exists(path, ec))
      throw CheckpointError(path + ": missing: range " + std::to_string(r) + " of " +
                            std::to_string(ranges));
    const std::vector<std::uint8_t> bytes = read_file(path);
    ShardCheckpoint c;
    try {
      c = decode_checkpoint(bytes.data(), bytes.size());
    } catch (const CheckpointError& e) {
      throw CheckpointError(path + ": " + e.what());
    }
    if (c.range != r || c.clock != clock)
      throw CheckpointError(path + ": holds range " + std::to_string(c.range) + " at clock " +
                            std::to_string(c.clock) + ", expected range " + std::to_string(r) +
                            " at clock " + std::to_string(clock));
    if (c.key_begin != next_key)
      throw CheckpointError(path + ": range " + std::to_string(r) + " begins at key " +
                            std::to_string(c.key_begin) + ", expected " +
                            std::to_string(next_key) + " (ranges must be contiguous from key 0)");
    next_key = c.key_begin + c.key_count;  // decode checked that this does not overflow
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace pstwin
