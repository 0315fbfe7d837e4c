#include "cli/variant_processes.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "cli/child_process.h"

namespace pstwin::cli {

namespace {

struct Child {
  pid_t pid = -1;
  int fd = -1;
  std::size_t index = 0;
  std::string buffer;
};

/// Waits for child `c` (at once when it is exiting) and records how it ended in `st`; a child
/// killed while `stopping` counts as stopped rather than failed.
void reap(Child& c, VariantStatus& st, bool stopping) {
  int wstatus = 0;
  while (waitpid(c.pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  close(c.fd);
  st.running = false;
  st.exit_code = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
  st.stopped = stopping && WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL;
  st.done = !st.stopped;
  if (st.exit_code == 0) st.fraction = 1.0;
}

/// Kills every running child and reaps it: the run was stopped. One that finished meanwhile
/// keeps its own exit status.
void stop_children(std::vector<Child>& running, std::vector<VariantStatus>& status) {
  for (const Child& c : running) kill(c.pid, SIGKILL);
  for (Child& c : running) reap(c, status[c.index], true);
  running.clear();
}

std::string variant_status_line(const std::vector<VariantStatus>& st) {
  std::ostringstream line;
  for (std::size_t i = 0; i < st.size(); ++i) {
    if (i) line << " | ";
    line << st[i].name << ' ';
    if (st[i].stopped)
      line << "stopped";
    else if (st[i].done)
      line << (st[i].exit_code == 0 ? "done" : "FAILED");
    else if (st[i].running)
      line << static_cast<int>(st[i].fraction * 100.0 + 0.5) << "% t=" << std::fixed
           << std::setprecision(1) << st[i].sim_time_s << "s";
    else
      line << "waiting";
  }
  return line.str();
}

}  // namespace

std::string stopped_variant_reason(const VariantStatus& st, const std::string& why) {
  if (st.exit_code == -1)  // never started
    return "the simulation was " + why + " before it started";
  std::ostringstream at;
  at << static_cast<int>(st.fraction * 100.0) << "% (simulated time " << st.sim_time_s << " s)";
  return "the simulation was " + why + " at " + at.str() + ", before it completed";
}

std::vector<VariantStatus> run_variant_processes(const std::vector<std::string>& names,
                                                 unsigned jobs, const VariantBody& body,
                                                 bool quiet, const StatusLineFn& status_line,
                                                 const net::StopRequest* stop) {
  const StatusLineFn line_of = status_line ? status_line : StatusLineFn(variant_status_line);
  std::vector<VariantStatus> status(names.size());
  for (std::size_t i = 0; i < names.size(); ++i) status[i].name = names[i];
  std::vector<Child> running;
  std::size_t next = 0;
  const bool tty = isatty(STDERR_FILENO);
  auto last_print = std::chrono::steady_clock::now() - std::chrono::seconds(60);
  std::cout.flush();
  std::cerr.flush();

  auto launch = [&](std::size_t index) {
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
      die_with_parent(parent);
      close(fds[0]);
      for (const auto& c : running) close(c.fd);
      auto report = [fd = fds[1]](double t, double f) {
        char buf[64];
        const int n = std::snprintf(buf, sizeof buf, "%.9g %.9g\n", t, f);
        if (write(fd, buf, static_cast<std::size_t>(n)) < 0) { /* parent gone: keep running */ }
      };
      int code = 1;
      try {
        code = body(index, report);
      } catch (const std::exception& e) {
        std::cerr << "\npstwin: variant " << names[index] << ": " << e.what() << "\n";
      }
      std::cout.flush();
      std::cerr.flush();
      _exit(code);
    }
    close(fds[1]);
    running.push_back(Child{pid, fds[0], index, {}});
    status[index].running = true;
  };

  const auto stopping = [stop] { return stop && stop->reason().has_value(); };
  while ((next < names.size() && !stopping()) || !running.empty()) {
    if (stopping()) {
      stop_children(running, status);
      break;
    }
    while (next < names.size() && running.size() < std::max(1u, jobs)) launch(next++);
    std::vector<pollfd> pfds;
    for (const auto& c : running) pfds.push_back(pollfd{c.fd, POLLIN, 0});
    // The stop's descriptor last, so that pfds[i] stays child i's: it wakes the wait at once.
    if (stop) pfds.push_back(pollfd{stop->fd(), POLLIN, 0});
    poll(pfds.data(), pfds.size(), 500);
    for (std::size_t i = 0; i < running.size();) {
      Child& c = running[i];
      char buf[4096];
      ssize_t n = 0;
      if (pfds[i].revents & (POLLIN | POLLHUP)) n = read(c.fd, buf, sizeof buf);
      if (n > 0) {
        c.buffer.append(buf, static_cast<std::size_t>(n));
        std::size_t nl;
        while ((nl = c.buffer.find('\n')) != std::string::npos) {
          std::istringstream in(c.buffer.substr(0, nl));
          in >> status[c.index].sim_time_s >> status[c.index].fraction;
          c.buffer.erase(0, nl + 1);
        }
        ++i;
        continue;
      }
      if (n == 0 && (pfds[i].revents & (POLLHUP | POLLIN))) {
        // The child closed its end: it is exiting.
        reap(c, status[c.index], false);
        running.erase(running.begin() + static_cast<long>(i));
        pfds.erase(pfds.begin() + static_cast<long>(i));
        continue;
      }
      ++i;
    }
    const auto now = std::chrono::steady_clock::now();
    if (!quiet && (tty || now - last_print > std::chrono::seconds(5))) {
      std::cerr << (tty ? "\r\033[K" : "") << "progress: " << line_of(status)
                << (tty ? "" : "\n") << std::flush;
      last_print = now;
    }
  }
  for (std::size_t i = next; i < names.size(); ++i) status[i].stopped = true;  // never started
  if (!quiet) std::cerr << (tty ? "\r\033[K" : "") << "progress: " << line_of(status) << "\n";
  return status;
}

}  // namespace pstwin::cli
