// Two remote processes, started over the ssh command, their stdout read back through pipes.
#include "cli/calibrate_hosts.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <thread>

#include "cli/calibrate_peer_lines.h"
#include "cli/child_exit.h"
#include "cli/child_process.h"
#include "cli/stop_signals.h"
#include "net/curve_keys.h"
#include "net/stop_request.h"

namespace fs = std::filesystem;

namespace pstwin::cli {

namespace {

using Clock = std::chrono::steady_clock;

/// Once the driver has sent its kStop, the seconds the echo peer has to report and end: its
/// lines are a few kB (a trial's took milliseconds).
constexpr double kEchoPeerEnd_s = 30.0;

/// One of the two processes: started through the ssh command, its stdout a pipe read here.
struct Remote {
  std::string host;
  std::string what;  ///< "echo peer" or "driver"
  pid_t pid = -1;
  int fd = -1;       ///< the read end of its stdout
  std::string out;   ///< everything read so far
  std::optional<ChildExit> end;

  /// "host H: the driver", for errors.
  std::string who() const { return "host " + host + ": the " + what; }
};

/// Owns the remote processes and the key file: whatever is left running when calibrate gives up
/// (an error here, an exception) is killed and reaped, and the key file removed.
struct Session {
  Remote echo, drive;
  std::string key_file;

  ~Session() {
    for (Remote* r : {&echo, &drive}) {
      if (r->pid > 0 && !r->end) {
        kill(r->pid, SIGKILL);
        int ws = 0;
        if (waitpid(r->pid, &ws, 0) == r->pid) forget_spawned(r->pid);
      }
      if (r->fd >= 0) close(r->fd);
    }
    if (!key_file.empty()) {
      std::error_code ignored;
      fs::remove(key_file, ignored);
    }
  }
};

/// Starts `remote_args` (pstwin's arguments) on r.host as launch starts a node there.
void start(Remote& r, const HostPairSettings& s, const std::vector<std::string>& remote_args) {
  std::vector<std::string> pstwin = {self_executable()};
  pstwin.insert(pstwin.end(), remote_args.begin(), remote_args.end());
  const std::vector<std::string> argv = over_ssh(s.ssh_command, r.host, fs::current_path().string(), pstwin);
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  try {
    r.pid = spawn(argv, fds[1]);
  } catch (...) {
    close(fds[0]);
    close(fds[1]);
    throw;
  }
  close(fds[1]);
  r.fd = fds[0];
}

/// Waits up to `grace_s` for r to end by itself (its stdout is closed: it is on its way out),
/// then kills it; sets r.end.
void reap(Remote& r, double grace_s) {
  const auto deadline = Clock::now() + std::chrono::milliseconds(static_cast<long>(grace_s * 1000));
  bool killed = false;
  for (;;) {
    if (!killed && Clock::now() >= deadline) {
      kill(r.pid, SIGKILL);
      killed = true;  // from here the wait blocks: SIGKILL ends it
    }
    int ws = 0;
    const pid_t got = waitpid(r.pid, &ws, killed ? 0 : WNOHANG);
    if (got == r.pid) {
      forget_spawned(r.pid);
      r.end = ChildExit::of(ws);
      return;
    }
    if (got < 0 && errno != EINTR) throw std::runtime_error(r.who() + ": waitpid: " + std::strerror(errno));
    if (got == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

/// "exited with status 255 (the ssh command's status for a failure of its own, ...)".
std::string end_text(const Remote& r, const HostPairSettings& s) {
  const bool ssh_failed = r.end->signal == 0 && r.end->code == 255;
  return r.end->text() + (ssh_failed ? " (" + s.ssh_command + "'s status for a failure of its own, e.g. it could "
                                           "not reach " + r.host + ")"
                                     : "");
}

/// Reads whatever the open pipes of `remotes` have until `done()` holds or every pipe is at its
/// end. A process whose pipe ends is reaped; one that ended other than ok throws at once
/// (std::runtime_error saying how, `before` appended: " before saying its endpoint"), so that
/// the other, which would wait out its timeout for it, is killed now (Session). Throws
/// std::runtime_error too when none says anything for `quiet_s` seconds, and as soon as `stop`
/// is requested (a signal: the Session then kills both and removes the key file).
void read_until(const std::vector<Remote*>& remotes, const HostPairSettings& s, double quiet_s,
                const std::string& before, const net::StopRequest& stop, const std::function<bool()>& done) {
  auto deadline = Clock::now() + std::chrono::milliseconds(static_cast<long>(quiet_s * 1000));
  while (!done()) {
    if (const auto why = stop.reason()) throw std::runtime_error(*why + "; the two processes were ended");
    std::vector<pollfd> polled = {{stop.fd(), POLLIN, 0}};
    std::vector<Remote*> whose = {nullptr};
    for (Remote* r : remotes)
      if (r->fd >= 0) {
        polled.push_back({r->fd, POLLIN, 0});
        whose.push_back(r);
      }
    if (polled.size() == 1) return;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      std::string names;
      for (Remote* r : whose)
        if (r) names += (names.empty() ? "" : " and ") + r->who();
      throw std::runtime_error(names + " said nothing for " + std::to_string(static_cast<long>(quiet_s)) +
                               " s; stopped");
    }
    const int n = poll(polled.data(), polled.size(), static_cast<int>(std::min<long long>(left, 1000)));
    if (n < 0 && errno != EINTR) throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    for (std::size_t i = 1; n > 0 && i < polled.size(); ++i) {
      if (!(polled[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[4096];
      const ssize_t got = read(polled[i].fd, buf, sizeof buf);
      if (got > 0) {
        whose[i]->out.append(buf, static_cast<std::size_t>(got));
        deadline = Clock::now() + std::chrono::milliseconds(static_cast<long>(quiet_s * 1000));
      } else if (got == 0 || errno != EINTR) {
        Remote& r = *whose[i];
        close(r.fd);
        r.fd = -1;
        reap(r, 10.0);  // its stdout closed: it is on its way out
        if (!r.end->ok())
          throw std::runtime_error(r.who() + " " + end_text(r, s) + before +
                                   (r.out.empty() ? "" : " (it printed '" + r.out.substr(0, 200) + "')") +
                                   "; see its messages above");
      }
    }
  }
}

std::string seconds_arg(double s) { return std::to_string(s); }

}  // namespace

std::pair<std::string, std::string> first_two_hosts(const std::vector<HostSlots>& hosts, const std::string& path) {
  if (hosts.size() < 2)
    throw std::invalid_argument(path + " lists " + std::to_string(hosts.size()) +
                                " host; calibrate measures the transport between the first two hosts of the "
                                "hostfile, so it needs two lines (without --hostfile it measures loopback "
                                "on this machine)");
  return {hosts[0].host, hosts[1].host};
}

std::vector<TransportSample> measure_transport_between(const HostPairSettings& s, const std::string& transport,
                                                       const std::vector<std::size_t>& sizes, int repetitions) {
  // Ctrl-C or a SIGTERM while the peers run: the wait below ends and the Session's destructor
  // kills them and removes the key file (a trial found the secret key left beside --out).
  net::StopRequest stop;
  const StopOnSignalsInHandler signals(stop);
  Session session;
  session.echo.host = s.echo_host;
  session.echo.what = "echo peer";
  session.drive.host = s.drive_host;
  session.drive.what = "driver";
  std::vector<std::string> common = {"--transport", transport, "--connect-timeout", seconds_arg(s.connect_timeout_s)};
  if (transport == "zmq-curve") {
    // One key pair for the two, in a file both see at the same path, as launch's job.key.
    session.key_file = fs::absolute(fs::path(s.key_dir.empty() ? "." : s.key_dir) /
                                    (".calibrate-" + std::to_string(getpid()) + ".key"))
                           .string();
    net::write_key_file(session.key_file, net::make_job_keys());
    common.insert(common.end(), {"--key-file", session.key_file});
  }
  // Whoever waits longest: the driver between two messages, or either side for the other to join.
  const double quiet_s = kEchoReplyTimeout_s + s.connect_timeout_s + 30.0;
  std::vector<std::string> echo_args = {"calibrate-peer", "echo"};
  echo_args.insert(echo_args.end(), common.begin(), common.end());
  start(session.echo, s, echo_args);
  read_until({&session.echo}, s, quiet_s, " before saying its endpoint", stop,
             [&] { return session.echo.out.find('\n') != std::string::npos; });
  const std::size_t newline = session.echo.out.find('\n');
  if (newline == std::string::npos)  // it ended well, having said nothing
    throw std::runtime_error(session.echo.who() + " " + end_text(session.echo, s) + " without saying its endpoint" +
                             (session.echo.out.empty() ? "" : " (it printed '" + session.echo.out + "')"));
  const std::string endpoint = parse_endpoint_line(session.echo.out.substr(0, newline), s.echo_host);

  std::string sizes_text;
  for (std::size_t b : sizes) sizes_text += (sizes_text.empty() ? "" : ",") + std::to_string(b);
  std::vector<std::string> drive_args = {"calibrate-peer", "drive", "--peer", endpoint, "--sizes", sizes_text,
                                         "--repetitions", std::to_string(repetitions)};
  drive_args.insert(drive_args.end(), common.begin(), common.end());
  start(session.drive, s, drive_args);
  // Until the driver has ended (reaped as its stdout closes, and ended well), and its report
  // is whole: a driver that did not finish leaves the echo peer waiting for it.
  read_until({&session.echo, &session.drive}, s, quiet_s, "", stop, [&] { return session.drive.fd < 0; });
  const DriverRounds driven = parse_driver_lines(session.drive.out, s.drive_host, sizes.size(), repetitions);
  // It sent its kStop: the echo peer reports and ends at once.
  read_until({&session.echo}, s, kEchoPeerEnd_s, "", stop, [] { return false; });
  const std::vector<EchoRound> echoed = parse_echo_lines(session.echo.out.substr(newline + 1), s.echo_host);
  try {
    return combine_rounds(transport, driven, echoed, repetitions);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error("hosts " + s.echo_host + " and " + s.drive_host + ": " + e.what());
  }
}

}  // namespace pstwin::cli
