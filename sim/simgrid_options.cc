// Checking SimGrid options in a child process: SimGrid reports many bad options by ending the
// process (xbt_die), which must not happen to a variant's run or to the CLI itself.
#include "sim/simgrid_options.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>

#include <simgrid/s4u.hpp>

#include "runtime/scenario/simulation_section.h"
#include "sim/platform.h"

namespace sg4 = simgrid::s4u;

namespace pstwin {

namespace {

// The child's own verdict follows this mark in what it writes; before it comes SimGrid's output.
constexpr const char kReasonMark[] = "\npstwin-simgrid-check: ";
// A check that runs longer than this is stopped (an option could make SimGrid spin or wait).
constexpr unsigned kCheckTimeout_s = 20;

/// For an unknown name: SimGrid's exception lists every option as "  name: (type)value"; the ones
/// that share the name's folder ("network/" of "network/modle") are likely what was meant.
std::string unknown_name_reason(const std::string& name, const std::string& simgrid_message) {
  std::string reason = "SimGrid has no option named \"" + name + "\"";
  const std::size_t slash = name.rfind('/');
  std::string similar;
  if (slash != std::string::npos) {
    const std::string folder = name.substr(0, slash + 1);
    std::istringstream lines(simgrid_message);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("  " + folder, 0) != 0) continue;
      const std::size_t end = line.find(": (");
      if (end == std::string::npos) continue;
      similar += (similar.empty() ? "" : ", ") + line.substr(2, end - 2);
    }
    if (!similar.empty()) return reason + "; under " + folder + " it has " + similar;
  }
  return reason + " (README, \"SimGrid options\", names the useful ones)";
}

/// Writes all of `text` to `fd`, ignoring errors (the parent then reports what it got).
void write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0 && errno != EINTR) return;
    if (n > 0) done += static_cast<std::size_t>(n);
  }
}

/// The child: stdout and stderr are the pipe. Builds pstwin's own platform (a star, as
/// build_platform makes it, with one server and one worker) with `option` set, sends one
/// message and runs one computation, so that options SimGrid only applies when the platform is
/// built or actors run (models, solvers, context factory) are tried on what simulate will use.
[[noreturn]] void check_in_child(const std::string& option) {
  // Ctrl-C and the like are the parent's to act on (simulate stops its runs); SimGrid's SIGINT
  // handler would print its actors here and the check go on. The alarm bounds the check.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&stop_signals, sig);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  alarm(kCheckTimeout_s);
  std::string reason;
  try {
    std::vector<std::string> args = {"pstwin-simgrid-check", "--log=root.thresh:error", "--log=root.fmt:%m%n"};
    for (const std::string& item : simgrid_options_from_env()) args.push_back("--cfg=" + item);
    args.push_back("--cfg=" + option);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int argc = static_cast<int>(args.size());
    sg4::Engine engine(&argc, argv.data());
    ClusterSection cluster;
    for (HostGroupSpec* group : {&cluster.worker, &cluster.server}) {
      group->device.peak_flops = 1e12;
      group->link = {1e9, 1e-5};
    }
    JobLayout layout;
    layout.servers = 1;
    layout.workers = 1;
    const std::vector<sg4::Host*> hosts = build_platform(cluster, layout);
    static int payload = 0;
    sg4::Actor::create("worker", hosts[layout.worker(0)],
                       [] { sg4::Mailbox::by_name("server")->put(&payload, 1000); });
    sg4::Actor::create("server", hosts[layout.server(0)], [] {
      sg4::Mailbox::by_name("server")->get<int>();
      sg4::this_actor::execute(1e6);
    });
    engine.run();
  } catch (const std::out_of_range& e) {  // xbt's config: no such name
    reason = unknown_name_reason(option.substr(0, option.find(':')), e.what());
  } catch (const std::range_error& e) {  // xbt's config: "invalid double", "not a boolean", ...
    reason = "SimGrid refused the value \"" + option.substr(option.find(':') + 1) + "\": " + e.what();
  } catch (const std::exception& e) {
    reason = std::string("SimGrid failed with it: ") + e.what();
  }
  if (reason.empty()) _exit(0);
  write_all(STDERR_FILENO, kReasonMark + reason);
  _exit(2);
}

/// What SimGrid wrote before it ended the process: its message without the backtrace.
std::string simgrid_last_words(std::string text) {
  const std::size_t backtrace = text.find("Backtrace");
  if (backtrace != std::string::npos) text.erase(backtrace);
  const std::size_t first = text.find_first_not_of(" \n\t");
  if (first == std::string::npos) return "";
  text = text.substr(first, text.find_last_not_of(" \n\t") - first + 1);
  // One line: SimGrid's lists ("  - 'Full': ...") read well joined with "; ".
  std::string joined;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t start = line.find_first_not_of(" \t-");
    if (start == std::string::npos) continue;
    joined += (joined.empty() ? "" : joined.back() == ':' ? " " : "; ") + line.substr(start);
  }
  return joined;
}

}  // namespace

std::vector<std::string> simgrid_options_from_env() {
  std::vector<std::string> out;
  const char* text = std::getenv("PSTWIN_SIMGRID_CFG");
  std::istringstream items(text ? text : "");
  for (std::string item; items >> item;) out.push_back(item);
  return out;
}

std::string simgrid_option_refusal(const std::string& option) {
  if (std::string why = simgrid_option_syntax_error(option); !why.empty()) return why;
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  std::cout.flush();
  std::cerr.flush();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(fds[0]);
    ::dup2(fds[1], STDOUT_FILENO);
    ::dup2(fds[1], STDERR_FILENO);
    ::close(fds[1]);
    check_in_child(option);
  }
  ::close(fds[1]);
  std::string output;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n > 0) output.append(buf, static_cast<std::size_t>(n));
    else if (n == 0 || errno != EINTR) break;
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  const std::size_t mark = output.find(kReasonMark);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 2 && mark != std::string::npos)
    return output.substr(mark + std::strlen(kReasonMark));
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
    return "SimGrid did not finish a two-host test run with it within " +
           std::to_string(kCheckTimeout_s) + " s";
  const std::string words = simgrid_last_words(output);
  if (!words.empty()) return words;
  return WIFSIGNALED(status) ? "SimGrid ended the process (signal " + std::to_string(WTERMSIG(status)) + ")"
                             : "SimGrid ended the process (exit status " + std::to_string(WEXITSTATUS(status)) + ")";
}

SimGridArgs::SimGridArgs(const std::vector<std::string>& options) {
  strings_ = {"pstwin", "--log=root.thresh:critical"};
  for (const auto& option : options) {
    if (std::string why = simgrid_option_refusal(option); !why.empty())
      throw SimGridOptionError(option, why);
    strings_.push_back("--cfg=" + option);
  }
  for (auto& s : strings_) pointers_.push_back(s.data());
  pointers_.push_back(nullptr);
  argc_ = static_cast<int>(strings_.size());
}

}  // namespace pstwin
