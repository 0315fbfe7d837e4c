#include "cli/variant_processes.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "cli/command_name.h"
#include "cli/child_process.h"
#include "cli/stop_signals.h"
#include "runtime/output/cut_outputs.h"

namespace pstwin::cli {

namespace {

struct Child {
  pid_t pid = -1;
  int fd = -1;      // its progress reports; -1 once it closed them
  int err_fd = -1;  // its stderr; -1 once it closed it
  std::size_t index = 0;
  std::string buffer;
  std::string err_buffer;  // what came after its last whole line
};

/// Writes `text` to stderr in one call, so that it is not cut by another process's writes.
void write_stderr(const std::string& text) {
  std::cerr.flush();
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = write(STDERR_FILENO, text.data() + done, text.size() - done);
    if (n <= 0 && errno != EINTR) return;
    if (n > 0) done += static_cast<std::size_t>(n);
  }
}

/// The whole lines of `buffer` (all of it with `flush`, a last partial line ended with '\n'),
/// each prefixed with "[name] ", taken out of `buffer`. A line that outgrows 64 KiB comes out in
/// pieces that size, so that a child writing no newline cannot make this process hold it all.
std::string prefixed_lines(std::string& buffer, const std::string& name, bool flush) {
  constexpr std::size_t kLongestLine = 64 * 1024;
  flush = flush || buffer.size() > kLongestLine;
  std::string out;
  std::size_t start = 0;
  for (std::size_t nl; (nl = buffer.find('\n', start)) != std::string::npos; start = nl + 1)
    out += "[" + name + "] " + buffer.substr(start, nl + 1 - start);
  buffer.erase(0, start);
  if (flush && !buffer.empty()) {
    out += "[" + name + "] " + buffer + "\n";
    buffer.clear();
  }
  return out;
}

/// Waits for child `c` (at once when it is exiting) and records how it ended in `st`; a child
/// killed while `stopping` counts as stopped rather than failed.
void reap(Child& c, VariantStatus& st, bool stopping) {
  int wstatus = 0;
  while (waitpid(c.pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (c.fd >= 0) close(c.fd);
  if (c.err_fd >= 0) close(c.err_fd);
  st.running = false;
  st.end = ChildExit::of(wstatus);
  st.exit_code = st.end.shell_status();
  st.stopped = stopping && WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL;
  st.done = !st.stopped;
  if (st.exit_code == 0) st.fraction = 1.0;
}

/// Reads what child `c` reported since the last read (one read(2); the caller polled first) into
/// its status: "SIM_TIME FRACTION" lines. Closes its end once the child closed its own.
void read_progress(Child& c, VariantStatus& st) {
  char buf[4096];
  const ssize_t n = read(c.fd, buf, sizeof buf);
  if (n > 0) {
    c.buffer.append(buf, static_cast<std::size_t>(n));
    std::size_t nl;
    while ((nl = c.buffer.find('\n')) != std::string::npos) {
      std::istringstream in(c.buffer.substr(0, nl));
      in >> st.sim_time_s >> st.fraction;
      c.buffer.erase(0, nl + 1);
    }
  } else if (n == 0 || errno != EINTR) {
    close(c.fd);
    c.fd = -1;
  }
}

/// Whether a child's run is over, only its outputs left to write: it reported its whole share
/// (VariantBody). A stop lets such a child finish, so that a run done is reported completed.
bool finishing(const VariantStatus& st) { return st.fraction >= 1.0; }

/// The run was stopped: reads every report the children sent before it (a child that reported
/// its end just before the stop must not be taken for one cut short), then kills every running
/// child that is not finishing, calls `on_killed` with it (its last words are passed on) and
/// reaps it; the finishing stay in `running`, to be waited for. One that ended meanwhile keeps
/// its own exit status.
void stop_children(std::vector<Child>& running, std::vector<VariantStatus>& status,
                   const std::function<void(Child&)>& on_killed) {
  for (Child& c : running) {
    pollfd pfd{c.fd, POLLIN, 0};
    while (c.fd >= 0 && poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLIN | POLLHUP | POLLERR))) {
      read_progress(c, status[c.index]);
      pfd.fd = c.fd;
    }
  }
  std::vector<Child> left;
  for (Child& c : running) {
    if (finishing(status[c.index])) {
      left.push_back(c);
      continue;
    }
    kill(c.pid, SIGKILL);
    on_killed(c);
    reap(c, status[c.index], true);
  }
  running = std::move(left);
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

void tidy_variant_folder(const std::string& dir, long pid) {
  try {
    tidy_killed_run_folder(dir, pid);
  } catch (const std::exception& e) {
    std::cerr << error_prefix() << e.what() << "\n";
  }
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
    int err[2];
    if (pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    if (pipe(err) != 0) {
      close(fds[0]);
      close(fds[1]);
      throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    }
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
      // The parent takes Ctrl-C, SIGTERM and SIGHUP (StopOnSignalsInHandler) and kills its
      // children when it stops; SimGrid's own SIGINT handler must never see them.
      block_stop_signals();
      die_with_parent(parent, SIGKILL);
      close(fds[0]);
      close(err[0]);
      // Its stderr goes through this process, which passes it on a whole line at a time, named
      // (children writing at once would otherwise cut into each other's lines).
      dup2(err[1], STDERR_FILENO);
      close(err[1]);
      for (const auto& c : running) {
        if (c.fd >= 0) close(c.fd);
        if (c.err_fd >= 0) close(c.err_fd);
      }
      auto report = [fd = fds[1]](double t, double f) {
        char buf[64];
        const int n = std::snprintf(buf, sizeof buf, "%.9g %.9g\n", t, f);
        if (write(fd, buf, static_cast<std::size_t>(n)) < 0) { /* parent gone: keep running */ }
      };
      int code = 1;
      try {
        code = body(index, report);
      } catch (const std::exception& e) {
        std::cerr << error_prefix() << "variant " << names[index] << ": " << e.what() << "\n";
      }
      std::cout.flush();
      std::cerr.flush();
      std::fflush(stderr);
      _exit(code);
    }
    close(fds[1]);
    close(err[1]);
    running.push_back(Child{pid, fds[0], err[0], index, {}, {}});
    status[index].running = true;
    status[index].pid = pid;
  };

  bool progress_shown = false;  // a progress line is on the terminal, to be cleared first
  auto pass_on = [&](const std::string& lines) {
    if (lines.empty()) return;
    write_stderr((progress_shown ? "\r\033[K" : "") + lines);
    progress_shown = false;
  };

  const auto stopping = [stop] { return stop && stop->reason().has_value(); };
  bool stopped = false;  // the stop was acted on: only finishing children are left
  while ((next < names.size() && !stopping()) || !running.empty()) {
    if (stopping() && !stopped) {
      stopped = true;
      stop_children(running, status,
                    [&](Child& c) { pass_on(prefixed_lines(c.err_buffer, names[c.index], true)); });
      if (running.empty()) break;
    }
    while (!stopped && next < names.size() && running.size() < std::max(1u, jobs)) launch(next++);
    std::vector<pollfd> pfds;
    for (const auto& c : running) {
      pfds.push_back(pollfd{c.fd, POLLIN, 0});  // a negative fd is ignored by poll
      pfds.push_back(pollfd{c.err_fd, POLLIN, 0});
    }
    // The stop's descriptor last, so that pfds[2i] and pfds[2i+1] stay child i's: it wakes the
    // wait at once. Not once acted on: it stays readable.
    if (stop && !stopped) pfds.push_back(pollfd{stop->fd(), POLLIN, 0});
    poll(pfds.data(), pfds.size(), 500);
    for (std::size_t i = 0; i < running.size(); ++i) {
      Child& c = running[i];
      if (c.fd >= 0 && (pfds[2 * i].revents & (POLLIN | POLLHUP | POLLERR))) read_progress(c, status[c.index]);
      if (c.err_fd >= 0 && (pfds[2 * i + 1].revents & (POLLIN | POLLHUP | POLLERR))) {
        char buf[4096];
        const ssize_t n = read(c.err_fd, buf, sizeof buf);
        if (n > 0) {
          c.err_buffer.append(buf, static_cast<std::size_t>(n));
          pass_on(prefixed_lines(c.err_buffer, names[c.index], false));
        } else if (n == 0 || errno != EINTR) {
          close(c.err_fd);
          c.err_fd = -1;
          pass_on(prefixed_lines(c.err_buffer, names[c.index], true));
        }
      }
    }
    for (std::size_t i = 0; i < running.size();) {
      Child& c = running[i];
      if (c.fd >= 0 || c.err_fd >= 0) {
        ++i;
        continue;
      }
      // The child closed both its ends: it is exiting.
      reap(c, status[c.index], false);
      running.erase(running.begin() + static_cast<long>(i));
    }
    const auto now = std::chrono::steady_clock::now();
    if (!quiet && (tty || now - last_print > std::chrono::seconds(5))) {
      std::cerr << (tty ? "\r\033[K" : "") << "progress: " << line_of(status)
                << (tty ? "" : "\n") << std::flush;
      progress_shown = tty;
      last_print = now;
    }
  }
  for (std::size_t i = next; i < names.size(); ++i) status[i].stopped = true;  // never started
  if (!quiet) std::cerr << (tty ? "\r\033[K" : "") << "progress: " << line_of(status) << "\n";
  return status;
}

}  // namespace pstwin::cli
