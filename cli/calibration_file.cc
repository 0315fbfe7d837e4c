// The fitted figures as scenario cluster keys, and the raw measurements as CSV.
#include "cli/calibration_file.h"

#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "runtime/output/atomic_file.h"

namespace pstwin::cli {

namespace {

// Messages up to this size cost about the same whatever their size (the latency), and from
// this size on no cache holds them, so their rate is the transfer's (the bandwidth).
constexpr double kSmallMessage = 1'000;
constexpr double kLargeMessage = 1'000'000;

/// `x` in `unit` (x / scale), with six significant digits, as the units parsers read it.
std::string with_unit(double x, double scale, const char* unit) {
  char text[64];
  std::snprintf(text, sizeof text, "%.6g%s", x / scale, unit);
  return text;
}

}  // namespace

TransportFit fit_transport(const std::vector<TransportSample>& samples, double memcpy_Bps) {
  std::vector<double> bytes, seconds, link, send, receive;
  for (const TransportSample& s : samples) {
    bytes.push_back(s.bytes);
    seconds.push_back(s.seconds);
    link.push_back(std::max(0.0, s.seconds - s.send_cpu_s - s.receive_cpu_s));
    send.push_back(s.send_cpu_s);
    receive.push_back(s.receive_cpu_s);
  }
  const auto rate = [&](double slope) { return slope > 0 ? std::min(memcpy_Bps, 1.0 / slope) : memcpy_Bps; };
  TransportFit f;
  f.transport = samples.front().transport;
  const LineFit whole = fit_ends(bytes, seconds, kSmallMessage, kLargeMessage);
  f.whole_latency_s = whole.intercept;
  f.whole_bandwidth_Bps = rate(whole.slope);
  const LineFit rest = fit_ends(bytes, link, kSmallMessage, kLargeMessage);
  f.latency_s = rest.intercept;
  f.bandwidth_Bps = rate(rest.slope);
  f.send_cpu = fit_ends(bytes, send, kSmallMessage, kLargeMessage);
  f.receive_cpu = fit_ends(bytes, receive, kSmallMessage, kLargeMessage);
  return f;
}

GroupDevices fit_group_devices(const std::vector<KernelTiming>& steps, const std::vector<KernelTiming>& evaluations,
                               double memory_Bps) {
  const auto samples = [](const std::vector<KernelTiming>& timings) {
    std::vector<KernelSample> out;
    for (const KernelTiming& k : timings) out.push_back({k.flops, k.bytes, k.seconds});
    return out;
  };
  GroupDevices d;
  d.worker = fit_roofline(samples(steps), memory_Bps);
  // The server's device prices many small steps (an aggregation, a reply's copy) and one large
  // evaluation per eval_every clocks. The evaluations, milliseconds each, cannot tell a per-call
  // time of a microsecond from their noise, and a noisy one would be charged on every one of
  // those small steps. Nor is the gradient steps' a server's: after a worker's wait they pay for
  // rows out of cache (a9a: 14 us a call, where a real server applies a push in 1 to 7 us).
  // calibrate times no server step, so the server's device charges no per-call overhead.
  d.server = evaluations.empty() ? d.worker : fit_roofline(samples(evaluations), memory_Bps, 0.0);
  return d;
}

nlohmann::json cluster_section(const CalibrationRecord& record, const GroupDevices& devices, const TransportFit& link) {
  nlohmann::json calibrated = {{"machine", record.machine},
                               {"date", record.date},
                               {"pstwin_version", record.pstwin_version},
                               {"transport", record.transport},
                               {"device", record.device},
                               {"cores", record.cores},
                               {"memcpy_bandwidth", with_unit(record.memcpy_Bps, 1e9, "GBps")},
                               {"transport_link",
                                {{"bandwidth", with_unit(link.whole_bandwidth_Bps, 1e9, "GBps")},
                                 {"latency", with_unit(link.whole_latency_s, 1e-6, "us")}}},
                               {"quick", record.quick}};
  if (!record.transport_hosts.empty()) {
    calibrated["transport_hosts"] = record.transport_hosts;
    calibrated["kernels_measured_on"] = record.machine;
  }
  const auto group = [&link](const DeviceSpec& device) -> nlohmann::json {
    return {
      {"device",
       {{"flops", with_unit(device.peak_flops, 1e9, "Gflops")},
        {"bandwidth", with_unit(device.mem_bandwidth_Bps, 1e9, "GBps")},
        {"overhead", with_unit(device.overhead_s, 1e-6, "us")}}},
      {"link",
       {{"bandwidth", with_unit(link.bandwidth_Bps, 1e9, "GBps")}, {"latency", with_unit(link.latency_s, 1e-6, "us")}}},
      {"messaging",
       {{"send_per_message", with_unit(link.send_cpu.intercept, 1e-6, "us")},
        {"send_per_byte", with_unit(link.send_cpu.slope, 1e-9, "ns")},
        {"receive_per_message", with_unit(link.receive_cpu.intercept, 1e-6, "us")},
        {"receive_per_byte", with_unit(link.receive_cpu.slope, 1e-9, "ns")}}}};
  };
  return {{"calibrated", calibrated},
          {"worker", group(devices.worker)},
          {"server", group(devices.server)},
          {"cpu", {{"cores", record.cores}, {"machines", "one"}}}};
}

void write_calibration_csv(const std::string& path, const std::vector<TransportSample>& transports,
                           const std::vector<KernelTiming>& kernels, double memcpy_Bps, std::size_t memcpy_bytes,
                           int memcpy_repetitions) {
  std::ostringstream out;
  out.precision(9);
  out << "kind,what,size,flops,bytes,median_seconds,send_cpu_seconds,receive_cpu_seconds,repetitions\n";
  for (const TransportSample& t : transports)
    out << "transport," << t.transport << ',' << t.bytes << ",,," << t.seconds << ',' << t.send_cpu_s << ','
        << t.receive_cpu_s << ',' << t.repetitions << '\n';
  for (const KernelTiming& k : kernels)
    out << (k.evaluation ? "evaluation" : "kernel") << ",\"" << k.model << "\"," << k.batch << ',' << k.flops << ',' << k.bytes << ',' << k.seconds
        << ",,," << k.calls << '\n';
  out << "memcpy,memcpy," << memcpy_bytes << ",," << memcpy_bytes << ','
      << static_cast<double>(memcpy_bytes) / memcpy_Bps << ",,," << memcpy_repetitions << '\n';
  write_file_atomically(path, out.str());
}

}  // namespace pstwin::cli
