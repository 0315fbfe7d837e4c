#include "net/live_metrics.h"

#include <algorithm>
#include <chrono>
#include <sstream>
#include <stdexcept>

#include <httplib.h>
#include <sys/socket.h>

namespace pstwin::net {

LiveMetrics::LiveMetrics(MetricsSink& inner, JobLayout layout)
    : inner_(inner),
      layout_(layout),
      computes_(layout.nodes(), 0),
      pushes_(layout.nodes(), 0),
      applied_(layout.nodes(), 0),
      served_(layout.nodes(), 0),
      heartbeats_(layout.nodes(), 0),
      bytes_(layout.nodes(), 0),
      spans_(layout.nodes(), 0),
      last_heartbeat_s_(layout.nodes(), -1.0) {}

void LiveMetrics::staleness(std::int64_t s, std::uint64_t count) {
  {
    std::lock_guard lock(mutex_);
    staleness_sum_ += static_cast<double>(s) * static_cast<double>(count);
    staleness_count_ += count;
    staleness_max_ = std::max(staleness_max_, s);
  }
  inner_.staleness(s, count);
}

void LiveMetrics::updates_applied(std::uint64_t n) {
  {
    std::lock_guard lock(mutex_);
    updates_ += n;
  }
  inner_.updates_applied(n);
}

void LiveMetrics::eval(EvalRow row) {
  {
    std::lock_guard lock(mutex_);
    global_clock_ = row.clock;
    test_metric_ = row.test_metric;
    now_s_ = std::max(now_s_, row.time_s);
  }
  inner_.eval(row);
}

void LiveMetrics::event(double time_s, const std::string& type, nlohmann::json fields) {
  inner_.event(time_s, type, std::move(fields));
}

void LiveMetrics::bytes_to_servers(std::uint64_t bytes) {
  {
    std::lock_guard lock(mutex_);
    bytes_to_servers_ += bytes;
  }
  inner_.bytes_to_servers(bytes);
}

void LiveMetrics::finish(const std::string& sha, bool diverged, const std::string& reason) {
  inner_.finish(sha, diverged, reason);
}

void LiveMetrics::span(std::uint32_t n, std::string_view name, double start_s, double end_s) {
  if (n < layout_.nodes()) {
    std::lock_guard lock(mutex_);
    ++spans_[n];
    if (name == "compute") ++computes_[n];
    else if (name == "push") ++pushes_[n];
    else if (name == "apply_push") ++applied_[n];
    else if (name == "serve_pull") ++served_[n];
    now_s_ = std::max(now_s_, end_s);
  }
  inner_.span(n, name, start_s, end_s);
}

void LiveMetrics::note_heartbeat(std::uint32_t n, double time_s) {
  if (n >= layout_.nodes()) return;
  std::lock_guard lock(mutex_);
  ++heartbeats_[n];
  last_heartbeat_s_[n] = time_s;
  now_s_ = std::max(now_s_, time_s);
}

void LiveMetrics::note_bytes(std::uint32_t n, std::uint64_t bytes) {
  if (n >= layout_.nodes()) return;
  std::lock_guard lock(mutex_);
  bytes_[n] = std::max(bytes_[n], bytes);
}

void LiveMetrics::note_time(double time_s) {
  std::lock_guard lock(mutex_);
  now_s_ = std::max(now_s_, time_s);
}

std::string LiveMetrics::node(std::uint32_t n) const {
  if (n == JobLayout::scheduler()) return "scheduler";
  return layout_.is_server(n) ? "server:" + std::to_string(layout_.server_index(n))
                              : "worker:" + std::to_string(layout_.worker_index(n));
}

std::string LiveMetrics::text() const {
  std::lock_guard lock(mutex_);
  std::ostringstream out;
  out.precision(12);
  auto head = [&](const char* name, const char* type, const char* help) {
    out << "# HELP " << name << ' ' << help << "\n# TYPE " << name << ' ' << type << '\n';
  };
  // One sample per node that `keep` selects.
  auto per_node = [&](const char* name, const char* type, const char* help, auto value, auto keep) {
    head(name, type, help);
    for (std::uint32_t n = 0; n < layout_.nodes(); ++n)
      if (keep(n)) out << name << "{node=\"" << node(n) << "\"} " << value(n) << '\n';
  };
  auto workers = [&](std::uint32_t n) { return layout_.is_worker(n); };
  auto servers = [&](std::uint32_t n) { return layout_.is_server(n); };
  auto others = [&](std::uint32_t n) { return n != JobLayout::scheduler(); };
  auto all = [](std::uint32_t) { return true; };
  per_node("pstwin_worker_clock", "gauge", "Iterations the worker has computed (its clock), as its spans report.",
           [&](std::uint32_t n) { return computes_[n]; }, workers);
  per_node("pstwin_worker_pushes_total", "counter", "Gradient pushes the worker has sent.",
           [&](std::uint32_t n) { return pushes_[n]; }, workers);
  per_node("pstwin_server_pushes_applied_total", "counter", "Workers' pushes the server has applied.",
           [&](std::uint32_t n) { return applied_[n]; }, servers);
  per_node("pstwin_server_pulls_served_total", "counter", "Pull requests the server has answered on their own.",
           [&](std::uint32_t n) { return served_[n]; }, servers);
  per_node("pstwin_spans_total", "counter", "Timeline spans received from the node (trace.json).",
           [&](std::uint32_t n) { return spans_[n]; }, all);
  per_node("pstwin_node_bytes_sent_total", "counter", "Encoded bytes the node has sent, as it last reported.",
           [&](std::uint32_t n) { return bytes_[n]; }, all);
  per_node("pstwin_heartbeats_total", "counter", "Heartbeats the scheduler received from the node.",
           [&](std::uint32_t n) { return heartbeats_[n]; }, others);
  head("pstwin_heartbeat_age_seconds", "gauge", "Seconds since the node's last heartbeat (nodes that sent one).");
  for (std::uint32_t n = 1; n < layout_.nodes(); ++n)
    if (last_heartbeat_s_[n] >= 0)
      out << "pstwin_heartbeat_age_seconds{node=\"" << node(n) << "\"} " << std::max(0.0, now_s_ - last_heartbeat_s_[n]) << '\n';
  head("pstwin_updates_applied_total", "counter", "Gradients applied to the model, summed over servers (reported with snapshots).");
  out << "pstwin_updates_applied_total " << updates_ << '\n';
  head("pstwin_staleness_sum", "counter", "Sum of the staleness (clocks) of applied gradients.");
  out << "pstwin_staleness_sum " << staleness_sum_ << '\n';
  head("pstwin_staleness_count", "counter", "Applied gradients whose staleness is in pstwin_staleness_sum.");
  out << "pstwin_staleness_count " << staleness_count_ << '\n';
  head("pstwin_staleness_max", "gauge", "Largest staleness of an applied gradient so far.");
  out << "pstwin_staleness_max " << staleness_max_ << '\n';
  head("pstwin_global_clock", "gauge", "Global clock of the latest evaluation (-1 before the first).");
  out << "pstwin_global_clock " << global_clock_ << '\n';
  head("pstwin_test_metric", "gauge", "Test metric of the latest evaluation.");
  out << "pstwin_test_metric " << test_metric_ << '\n';
  head("pstwin_bytes_to_servers_total", "counter", "Encoded bytes of workers' pushes and pulls the servers received, as they report it when they finish (0 until then).");
  out << "pstwin_bytes_to_servers_total " << bytes_to_servers_ << '\n';
  head("pstwin_job_time_seconds", "gauge", "The job's clock as the scheduler last heard it.");
  out << "pstwin_job_time_seconds " << now_s_ << '\n';
  return out.str();
}

std::optional<Message> ObservedEnv::recv(double timeout_s) {
  auto m = inner_.recv(timeout_s);
  const double now = inner_.now();
  live_.note_time(now);
  live_.note_bytes(JobLayout::scheduler(), inner_.bytes_sent());
  if (m && m->header.type == MsgType::kHeartbeat) live_.note_heartbeat(m->header.sender, now);
  return m;
}

std::pair<std::string, int> parse_metrics_address(const std::string& address) {
  const auto bad = [&](const std::string& why) {
    return std::invalid_argument("metrics address '" + address + "': " + why +
                                 " (expected HOST:PORT, e.g. 127.0.0.1:9464, [::1]:0, 0.0.0.0:9464)");
  };
  if (address.empty()) throw bad("empty (none turns live metrics off)");
  // A pasted space would otherwise reach the resolver as part of the host name.
  if (address.find_first_of(" \t\r\n") != std::string::npos) throw bad("it contains white space");
  // "[::1]" has colons but no port: look for the port after the closing bracket.
  if (!address.empty() && address.front() == '[' && address.find("]:") == std::string::npos)
    throw bad(address.back() == ']' ? "no port" : "no closing bracket");
  const auto colon = address.rfind(':');
  if (colon == std::string::npos) throw bad("no port");
  std::string host = address.substr(0, colon);
  const std::string port = address.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  else if (host.find(':') != std::string::npos) throw bad("an IPv6 address needs brackets");
  if (host.empty()) throw bad("no host");
  if (port.empty() || port.size() > 5 || !std::all_of(port.begin(), port.end(), ::isdigit) ||
      std::stoi(port) > 65535)
    throw bad("port '" + port + "' is not a number from 0 to 65535");
  return {host, std::stoi(port)};
}

MetricsHttpServer::MetricsHttpServer(const std::string& address, std::function<std::string()> render)
    : server_(std::make_unique<httplib::Server>()) {
  auto [host, port] = parse_metrics_address(address);
  // httplib's default also sets SO_REUSEPORT, which lets a second job bind a port the first one
  // serves, and scrapes then alternate between the two jobs. SO_REUSEADDR alone only allows
  // rebinding over connections in TIME_WAIT, so a taken port is refused.
  server_->set_socket_options([](int sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  server_->Get("/metrics", [render = std::move(render)](const httplib::Request&, httplib::Response& res) {
    res.set_content(render(), "text/plain; version=0.0.4; charset=utf-8");
  });
  const int bound = port == 0 ? server_->bind_to_any_port(host) : (server_->bind_to_port(host, port) ? port : -1);
  if (bound < 0)
    throw std::runtime_error("cannot serve metrics at " + address +
                             ": the port is taken or no interface has that address");
  const bool v6 = host.find(':') != std::string::npos;
  url_ = "http://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(bound) + "/metrics";
  thread_ = std::thread([this] {
    server_->listen_after_bind();
    listen_returned_ = true;
  });
}

MetricsHttpServer::~MetricsHttpServer() {
  // httplib's stop() does nothing until the listening thread has marked the server running, and
  // that thread would then listen for ever: a job that fails at once (its ZeroMQ port taken)
  // hung here. Wait until it runs, or has already given up, before stopping it.
  while (!server_->is_running() && !listen_returned_)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  server_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace pstwin::net
