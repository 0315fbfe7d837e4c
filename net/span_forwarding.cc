#include "net/span_forwarding.h"

#include <cmath>
#include <utility>

#include "net/live_metrics.h"
#include "runtime/errors.h"
#include "runtime/job_layout.h"

namespace pstwin::net {

void SpanForwardingEnv::Sink::span(std::uint32_t, std::string_view name, double start_s, double end_s) {
  // A worker's "push" spans always go, one per clock: the scheduler counts the job's progress
  // from them (RunRecorder::worker_clocks_done), which a stopped job reports.
  if (env_.forwarded_ >= kMaxForwardedSpans && name != "push") {
    ++env_.dropped_;
    return;
  }
  ++env_.forwarded_;
  env_.batch_.push_back(nlohmann::json::array({name, start_s, end_s}));
  // Sent when a batch is full, or every kSpanFlushInterval_s: the scheduler's live metrics
  // (net/live_metrics.h) count a worker's clock from its compute spans.
  if (env_.batch_.size() >= kSpansPerBatch || end_s - env_.last_flush_s_ >= kSpanFlushInterval_s)
    env_.flush_spans();
}

void SpanForwardingEnv::flush_spans(bool last) {
  if (batch_.empty() && !last) return;
  Message m;
  m.header.type = MsgType::kEvent;
  nlohmann::json fields{{"time_s", inner_.now()}, {"type", "trace_spans"}, {"spans", std::move(batch_)},
                        {"dropped", dropped_}, {"bytes_sent", inner_.bytes_sent()}};
  if (last) fields["last"] = true;
  m.data = fields.dump();
  last_flush_s_ = inner_.now();
  batch_ = nlohmann::json::array();
  inner_.send(JobLayout::scheduler(), std::move(m));
}

void SpanForwardingEnv::send(NodeId to, Message msg) {
  const bool last_word = msg.header.type == MsgType::kWorkerDone ||
                         (msg.header.type == MsgType::kSnapshot && (msg.header.flags & msg_flags::kFinal));
  if (last_word && to == JobLayout::scheduler()) flush_spans();
  inner_.send(to, std::move(msg));
}

bool is_last_batch(const nlohmann::json& fields, const std::string& what) {
  const auto it = fields.find("last");
  if (it == fields.end()) return false;
  if (!it->is_boolean()) throw ProtocolError(what + ": \"last\" must be true or false");
  return it->get<bool>();
}

void take_forwarded_spans(std::uint32_t from, const nlohmann::json& fields, MetricsSink& metrics,
                          const std::string& what) {
  const auto it = fields.find("spans");
  if (it == fields.end() || !it->is_array())
    throw ProtocolError(what + ": \"spans\" must be an array");
  if (it->size() > kSpansPerBatch)
    throw ProtocolError(what + ": " + std::to_string(it->size()) + " spans, at most " +
                        std::to_string(kSpansPerBatch) + " per message");
  for (std::size_t i = 0; i < it->size(); ++i) {
    const auto& s = (*it)[i];
    const bool shaped = s.is_array() && s.size() == 3 && s[0].is_string() && s[1].is_number() &&
                        s[2].is_number();
    if (!shaped || !std::isfinite(s[1].get<double>()) || !std::isfinite(s[2].get<double>()) ||
        s[1].get<double>() > s[2].get<double>())
      throw ProtocolError(what + ": spans/" + std::to_string(i) +
                          " must be [name, start_s, end_s] with start_s <= end_s");
  }
  for (const auto& s : *it)
    metrics.span(from, s[0].get_ref<const std::string&>(), s[1].get<double>(), s[2].get<double>());
  if (auto* live = dynamic_cast<LiveMetrics*>(&metrics); live) {
    if (const auto b = fields.find("bytes_sent"); b != fields.end() && b->is_number_unsigned())
      live->note_bytes(from, b->get<std::uint64_t>());
  }
}

}  // namespace pstwin::net
