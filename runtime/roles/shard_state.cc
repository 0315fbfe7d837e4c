#include "runtime/roles/shard_state.h"

#include <string>

#include <nlohmann/json.hpp>

#include "runtime/errors.h"

namespace pstwin {

namespace {

std::string about(const Message& m) {
  return std::string(msg_type_name(m.header.type)) + " from node " +
         std::to_string(m.header.sender) + " for key range " + std::to_string(m.header.range);
}

void append(std::vector<float>& to, const std::vector<float>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

/// Takes the next `n` floats of `m.values` at `at`.
std::vector<float> take(const Message& m, std::size_t& at, std::size_t n) {
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
  m.data = nlohmann::json{{"params", n_params},
                          {"opt_first", state.optimizer.first.size()},
                          {"opt_second", state.optimizer.second.size()},
                          {"opt_steps", state.optimizer.steps},
                          {"pushes", cs.pushes},
                          {"live", live},
                          {"applied_clock", cs.applied_clock},
                          {"arrived_for_clock", cs.arrived_for_clock},
                          {"last_request", state.last_request},
                          {"buffers", buffers}}
               .dump();
  return m;
}

ShardState read_shard_state(const Message& m) {
  ShardState s;
  s.clock = m.header.clock;
  try {
    const auto j = nlohmann::json::parse(m.data);
    const auto n_params = j.at("params").get<std::size_t>();
    const auto n_first = j.at("opt_first").get<std::size_t>();
    const auto n_second = j.at("opt_second").get<std::size_t>();
    std::size_t need = n_params + n_first + n_second;
    for (const auto& b : j.at("buffers")) need += b.at("values").get<std::size_t>();
    if (m.values.size() != need)
      throw ProtocolError(about(m) + ": carries " + std::to_string(m.values.size()) +
                          " values, its layout needs " + std::to_string(need));
    std::size_t at = 0;
    s.params = take(m, at, n_params);
    s.optimizer.first = take(m, at, n_first);
    s.optimizer.second = take(m, at, n_second);
    s.optimizer.steps = j.at("opt_steps").get<std::uint64_t>();
    s.consistency.pushes = j.at("pushes").get<std::vector<std::int64_t>>();
    for (int v : j.at("live").get<std::vector<int>>()) s.consistency.live.push_back(v != 0);
    s.consistency.applied_clock = j.at("applied_clock").get<std::int64_t>();
    s.consistency.arrived_for_clock = j.at("arrived_for_clock").get<std::uint32_t>();
    s.last_request = j.at("last_request").get<std::vector<std::uint64_t>>();
    for (const auto& b : j.at("buffers")) {
      BufferedGradient g;
      g.worker = b.at("worker").get<std::uint32_t>();
      g.version = b.at("version").get<std::int64_t>();
      g.values = take(m, at, b.at("values").get<std::size_t>());
      g.rows = b.at("rows").get<std::vector<std::uint32_t>>();
      s.buffered.push_back(std::move(g));
    }
  } catch (const nlohmann::json::exception& e) {
    throw ProtocolError(about(m) + ": bad state layout: " + e.what());
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
  try {
    const auto j = nlohmann::json::parse(m.data);
    const auto first = j.at("opt_first").get<std::size_t>();
    const auto second = j.at("opt_second").get<std::size_t>();
    if (m.values.size() != floats + first + second)
      throw ProtocolError(about(m) + ": resume start carries " + std::to_string(m.values.size()) +
                          " values, expected " + std::to_string(floats) + " parameters + " +
                          std::to_string(first) + " + " + std::to_string(second) +
                          " optimizer values");
    ResumeStart resume;
    resume.clock = j.at("clock").get<std::int64_t>();
    resume.optimizer.steps = j.at("opt_steps").get<std::uint64_t>();
    std::size_t at = 0;
    start.params = take(m, at, floats);
    resume.optimizer.first = take(m, at, first);
    resume.optimizer.second = take(m, at, second);
    start.resume = std::move(resume);
  } catch (const nlohmann::json::exception& e) {
    throw ProtocolError(about(m) + ": bad resume start: " + e.what());
  }
  return start;
}

}  // namespace pstwin
