#include "cli/device_option.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

#include "kernels/select_backend.h"

namespace po = boost::program_options;

namespace pstwin::cli {

namespace {

/// Runs make_backend(device) in a child process; returns its report: "ok <name>\n<chosen>" or
/// "error\n<message>".
std::string probe_in_child(const std::string& device) {
  int fds[2];
  if (pipe(fds) != 0) return std::string("error\ncannot probe the GPU: pipe: ") + std::strerror(errno);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return std::string("error\ncannot probe the GPU: fork: ") + std::strerror(errno);
  }
  if (pid == 0) {
    close(fds[0]);
    std::string report;
    try {
      std::string chosen;
      auto backend = make_backend(device, &chosen);
      report = "ok " + backend->name() + "\n" + chosen;
    } catch (const std::exception& e) {
      report = std::string("error\n") + e.what();
    }
    const char* p = report.data();
    std::size_t left = report.size();
    while (left > 0) {
      const ssize_t w = write(fds[1], p, left);
      if (w <= 0) break;
      p += w;
      left -= static_cast<std::size_t>(w);
    }
    _exit(0);  // no atexit handlers, no CUDA teardown in a forked copy
  }
  close(fds[1]);
  std::string report;
  char buf[4096];
  ssize_t r;
  while ((r = read(fds[0], buf, sizeof buf)) > 0 || (r < 0 && errno == EINTR))
    if (r > 0) report.append(buf, static_cast<std::size_t>(r));
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (report.empty()) return "error\nthe process probing the GPU crashed (device " + device + ")";
  return report;
}

}  // namespace

void add_device_option(po::options_description& desc, const std::string& default_help) {
  desc.add_options()("device", po::value<std::string>(),
                     ("where the roles compute: auto (a GPU when one is usable, else the CPU), cpu or "
                      "cuda; " + default_help).c_str());
}

std::optional<std::string> requested_device(const po::variables_map& vm, const std::string& fallback,
                                            const std::string& command, const std::string& shown) {
  const std::string device = vm.count("device") ? vm["device"].as<std::string>() : fallback;
  if (!is_device_name(device)) {
    std::cerr << "pstwin " << command << ": " << (shown.empty() ? std::string("--device") : shown) << " must be " << kDeviceChoices << ", not '" << device << "'\n";
    return std::nullopt;
  }
  return device;
}

std::optional<std::string> resolve_device(const std::string& device, const std::string& command,
                                          std::string* chosen) {
  if (device == "cpu") {
    if (chosen != nullptr) *chosen = "cpu";
    return device;
  }
  const std::string report = probe_in_child(device);
  const auto newline = report.find('\n');
  const std::string head = report.substr(0, newline);
  const std::string rest = newline == std::string::npos ? "" : report.substr(newline + 1);
  if (head.rfind("ok ", 0) != 0) {
    std::cerr << "pstwin " << command << ": " << rest << "\n";
    return std::nullopt;
  }
  if (chosen != nullptr) *chosen = rest;
  return head.substr(3);
}

}  // namespace pstwin::cli
