#include "runtime/roles/shard_state.h"

#include <string>

#include <nlohmann/json.hpp>

#include "runtime/errors.h"
#include "runtime/wire_json.h"

namespace pstwin {

namespace {

using nlohmann::json;

std::string about(const Message& m) {
  return std::string(msg_type_name(m.header.type)) + " from node " +
         std::to_string(m.header.sender) + " for key range " + std::to_string(m.header.range);
}

void append(std::vector<float>& to, const std::vector<float>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

/// Takes the next `n` floats of `m.values` at `at`. Throws ProtocolError when fewer are left (the
/// layout's counts come off the wire and are checked here, where they are used).
std::vector<float> take(const Message& m, std::size_t& at, std::size_t n) {
  if (at > m.values.size() || n > m.values.size() - at)
    throw ProtocolError(about(m) + ": its layout asks for " + std::to_string(n) + " values at " +
                        std::to_string(at) + ", it carries " + std::to_string(m.values.size()));
  std::vector<float> out(m.values.begin() + static_cast<long>(at),
                         m.values.begin() + static_cast<long>(at + n));
  at += n;
  return out;
}

}  // namespace

Message shard_state_message(std::uint32_t range, std::uint64_t seq, ShardState state) {
  Message m;
  m.header.type = MsgType::kShardState;
  m.header.range = range;
  m.header.seq = seq;
  m.header.clock = state.clock;
  const std::size_t n_params = state.params.size();
  m.values = std::move(state.params);
  append(m.values, state.optimizer.first);
  append(m.values, state.optimizer.second);
  nlohmann::json buffers = nlohmann::json::array();
  for (const BufferedGradient& b : state.buffered) {
    buffers.push_back({{"worker", b.worker}, {"version", b.version},
                       {"values", b.values.size()}, {"rows", b.rows}});
    append(m.values, b.values);
  }
  const ConsistencyState& cs = state.consistency;
  std::vector<int> live(cs.live.begin(), cs.live.end());
  nlohmann::json data = nlohmann::json{{"params", n_params},
                          {"opt_first", state.optimizer.first.size()},
                          {"opt_second", state.optimizer.second.size()},
                          {"opt_steps", state.optimizer.steps},
                          {"pushes", cs.pushes},
                          {"live", live},
                          {"applied_clock", cs.applied_clock},
                          {"arrived_for_clock", cs.arrived_for_clock},
                          {"last_request", state.last_request},
                          {"buffers", buffers}};
  // Only when there are counts: a state without them is byte for byte what it was before.
  if (!state.staleness_counts.empty()) data["staleness"] = state.staleness_counts;
  m.data = data.dump();
  return m;
}

ShardState read_shard_state(const Message& m) {
  ShardState s;
  s.clock = m.header.clock;
  const std::string what = about(m);
  const auto j = wire_json::parse_object(m.data, what);
  // Each count is at most what the message carries, so their sum cannot wrap.
  const auto count = [&](const json& from, const char* key) {
    const auto n = wire_json::integer_member<std::uint64_t>(from, key, what);
    if (n > m.values.size())
      throw ProtocolError(what + ": \"" + key + "\" is " + std::to_string(n) + ", the message carries " +
                          std::to_string(m.values.size()) + " values");
    return static_cast<std::size_t>(n);
  };
  const std::size_t n_params = count(j, "params");
  const std::size_t n_first = count(j, "opt_first");
  const std::size_t n_second = count(j, "opt_second");
  const json& buffers = wire_json::member(j, "buffers", what);
  if (!buffers.is_array()) throw ProtocolError(what + ": \"buffers\" must be an array");
  std::size_t need = n_params + n_first + n_second;
  for (const auto& b : buffers) {
    if (!b.is_object()) throw ProtocolError(what + ": each of \"buffers\" must be an object");
    if (__builtin_add_overflow(need, count(b, "values"), &need))
      throw ProtocolError(what + ": its buffers' value counts add up past 2^64");
  }
  if (m.values.size() != need)
    throw ProtocolError(what + ": carries " + std::to_string(m.values.size()) +
                        " values, its layout needs " + std::to_string(need));
  std::size_t at = 0;
  s.params = take(m, at, n_params);
  s.optimizer.first = take(m, at, n_first);
  s.optimizer.second = take(m, at, n_second);
  s.optimizer.steps = wire_json::integer_member<std::uint64_t>(j, "opt_steps", what);
  s.consistency.pushes = wire_json::integer_list<std::int64_t>(j, "pushes", what);
  for (int v : wire_json::integer_list<int>(j, "live", what)) s.consistency.live.push_back(v != 0);
  s.consistency.applied_clock = wire_json::integer_member<std::int64_t>(j, "applied_clock", what);
  s.consistency.arrived_for_clock = wire_json::integer_member<std::uint32_t>(j, "arrived_for_clock", what);
  s.last_request = wire_json::integer_list<std::uint64_t>(j, "last_request", what);
  if (j.contains("staleness")) s.staleness_counts = wire_json::integer_list<std::uint32_t>(j, "staleness", what);
  for (const auto& b : buffers) {
    BufferedGradient g;
    g.worker = wire_json::integer_member<std::uint32_t>(b, "worker", what);
    g.version = wire_json::integer_member<std::int64_t>(b, "version", what);
    g.values = take(m, at, count(b, "values"));
    g.rows = wire_json::integer_list<std::uint32_t>(b, "rows", what);
    s.buffered.push_back(std::move(g));
  }
  return s;
}

std::size_t range_floats(const JobSpec& spec, const KeyRange& keys) {
  return spec.synthetic ? 0 : keys.size() * spec.values_per_key();
}

Message range_start_message(const JobSpec& spec, std::uint32_t range, const KeyRange& keys,
                            const std::vector<float>& init) {
  Message m;
  m.header.type = MsgType::kStart;
  m.header.range = range;
  m.keys = {keys.begin};
  m.lengths = {static_cast<std::uint32_t>(keys.size())};
  if (spec.resume) {
    const ResumePoint& rp = *spec.resume;
    m.values = rp.params.at(range);
    append(m.values, rp.optimizer_first.at(range));
    append(m.values, rp.optimizer_second.at(range));
    m.data = nlohmann::json{{"clock", rp.clock},
                            {"opt_first", rp.optimizer_first.at(range).size()},
                            {"opt_second", rp.optimizer_second.at(range).size()},
                            {"opt_steps", rp.optimizer_steps.at(range)}}
                 .dump();
  } else if (spec.synthetic) {
    m.virtual_values = keys.size();
  } else {
    const std::uint64_t w = spec.values_per_key();
    m.values.assign(init.begin() + static_cast<long>(keys.begin * w),
                    init.begin() + static_cast<long>(keys.end * w));
  }
  return m;
}

RangeStart read_range_start(const Message& m, const KeyRange& keys, std::size_t floats) {
  if (m.keys.size() != 1 || m.lengths.size() != 1 || m.keys[0] != keys.begin ||
      m.lengths[0] != keys.size())
    throw ProtocolError(about(m) + ": does not carry its keys [" + std::to_string(keys.begin) +
                        ", " + std::to_string(keys.end) + ")");
  RangeStart start;
  if (m.data.empty()) {
    // Fresh. The synthetic model's values are virtual (zeros over a real wire): none are kept.
    if (floats > 0 && m.values.size() != floats)
      throw ProtocolError(about(m) + ": carries " + std::to_string(m.values.size()) +
                          " initial values, the range holds " + std::to_string(floats));
    if (floats > 0) start.params = m.values;
    return start;
  }
  const std::string what = about(m);
  const auto j = wire_json::parse_object(m.data, what);
  const auto first = wire_json::integer_member<std::uint64_t>(j, "opt_first", what);
  const auto second = wire_json::integer_member<std::uint64_t>(j, "opt_second", what);
  // Compared without a sum that could wrap: each part at most what is carried.
  const std::uint64_t carried = m.values.size();
  if (floats > carried || first > carried - floats || second != carried - floats - first)
    throw ProtocolError(what + ": resume start carries " + std::to_string(m.values.size()) + " values, expected " +
                        std::to_string(floats) + " parameters + " + std::to_string(first) + " + " +
                        std::to_string(second) + " optimizer values");
  ResumeStart resume;
  resume.clock = wire_json::integer_member<std::int64_t>(j, "clock", what);
  resume.optimizer.steps = wire_json::integer_member<std::uint64_t>(j, "opt_steps", what);
  std::size_t at = 0;
  start.params = take(m, at, floats);
  resume.optimizer.first = take(m, at, first);
  resume.optimizer.second = take(m, at, second);
  start.resume = std::move(resume);
  return start;
}

}  // namespace pstwin
