// pstwin: simulate parameter-server training (and, later, deploy it). See README.md.
#include <signal.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cli/allocator_tuning.h"
#include "cli/command_name.h"
#include "cli/commands.h"
#include "cli/environment_variables.h"

namespace {
void usage(std::ostream& out) {
  out << "usage: pstwin <command> [options]\n\n"
         "commands:\n"
         "  simulate SCENARIO.json [--out DIR] [--set /ptr=value ...] [--jobs N]\n"
         "           run every variant of the scenario in SimGrid and compare them\n"
         "  sweep SCENARIO.json --grid /ptr=v1,v2,... [--seeds N] [--jobs N] [--out DIR]\n"
         "           run the variants over a grid of settings (and seeds); one sweep.csv\n"
         "  launch SCENARIO.json [--transport zmq|ucx|inproc] [--out DIR] [--hostfile FILE]\n"
         "           run the same roles for real: local processes over ZeroMQ, threads, or\n"
         "           processes on the machines of a hostfile (over ssh)\n"
         "  node --role R --scheduler tcp://HOST:PORT SCENARIO.json\n"
         "           one node of a real job (for cluster launchers)\n"
         "  keygen FILE\n"
         "           write a new job key pair for nodes started by hand\n"
         "  calibrate [SCENARIO.json ...] --out calibrated.json [--quick]\n"
         "           measure this machine; write cluster keys a scenario can include\n"
         "  validate SCENARIO.json [--set /ptr=value ...]\n"
         "           check a scenario without running it\n"
         "  --version\n"
         "           pstwin's version and commit, and the SimGrid, ZeroMQ and CUDA versions\n\n"
         "Run 'pstwin <command> --help' or 'pstwin help <command>' for a command's options.\n";
}
/// The commands, as `pstwin help` names them.
const std::vector<std::string> kCommands = {"simulate", "sweep",     "launch",   "node",
                                            "keygen",   "calibrate", "validate", "version"};

/// Runs `command` with `args`, or nullopt when there is no such command.
std::optional<int> run_command(const std::string& command, const std::vector<std::string>& args) {
  if (command == "simulate") return pstwin::cli::simulate_command(args);
  if (command == "sweep") return pstwin::cli::sweep_command(args);
  if (command == "validate") return pstwin::cli::validate_command(args);
  if (command == "launch") return pstwin::cli::launch_command(args);
  if (command == "node") return pstwin::cli::node_command(args);
  if (command == "keygen") return pstwin::cli::keygen_command(args);
  if (command == "calibrate") return pstwin::cli::calibrate_command(args);
  // Internal, and so not among kCommands: what `calibrate --hostfile` starts on each machine. It
  // reads PSTWIN_ADVERTISE as launch's nodes do, so that variable is not taken away from it.
  if (command == "calibrate-peer") return pstwin::cli::calibrate_peer_command(args);
  return std::nullopt;
}

/// `pstwin help COMMAND`: the command's own --help (stdout, status 0); help's own for `help`
/// (or --help, -h); an unknown one is refused listing the commands (status 2).
int help_command(const std::string& asked) {
  if (asked == "help" || asked == "--help" || asked == "-h") {
    std::cout << "usage: pstwin help [COMMAND] (or pstwin --help, pstwin COMMAND --help)\n"
                 "Without COMMAND, lists the commands; with one, prints that command's usage and options.\n";
    return 0;
  }
  if (asked == "version" || asked == "--version") {
    std::cout << "usage: pstwin --version (or pstwin version)\n"
                 "Prints pstwin's version and commit, and the SimGrid, ZeroMQ and CUDA versions.\n";
    return 0;
  }
  if (const auto code = run_command(asked, {"--help"})) return *code;
  std::cerr << "pstwin help: there is no command '" << asked << "'; the commands are";
  for (const std::string& c : kCommands) std::cerr << " " << c;
  std::cerr << " help\n";
  return 2;
}
/// After `command` ended with `status`: when stdout could not be written (closed early, as by
/// `| head -1`), says on stderr that only what it printed was lost, its files being written.
/// Returns `status` unchanged: the command did its work (README "Outputs").
int finish_stdout(const std::string& command, int status) {
  std::cout.flush();
  if (!std::cout)
    std::cerr << "pstwin " << command << ": stdout was closed before all was printed; the files are written "
                 "all the same (exit status " << status << ")\n";
  return status;
}
}  // namespace

int main(int argc, char** argv) {
  // UCX, loaded with this binary, catches SIGHUP as its debug signal (UCX_DEBUG_SIGNO) from
  // before main: a SIGHUP then printed nothing, interrupted a system call, and was lost, so a
  // hangup in a command's first moments neither stopped it nor ended it. Until a command takes
  // the stop signals itself (StopOnSignals*), SIGHUP ends the process as it would any other.
  if (struct sigaction hup {}; sigaction(SIGHUP, nullptr, &hup) == 0 && hup.sa_handler != SIG_DFL &&
                               hup.sa_handler != SIG_IGN)
    std::signal(SIGHUP, SIG_DFL);
  // A line on stderr goes out in one write, so that processes sharing stderr (launch's nodes)
  // never cut into each other's lines: C's stderr line-buffered, and cerr (which writes through
  // it) no longer flushing at every <<. Before anything is written.
  std::setvbuf(stderr, nullptr, _IOLBF, BUFSIZ);
  std::cerr.unsetf(std::ios_base::unitbuf);
  // A closed stdout (`pstwin simulate S | head -1`) must not end a command before it wrote its
  // files: a trial's SIGPIPE on the table lost comparison.csv. Writes to it now fail (EPIPE)
  // instead, and finish_stdout says so once the command is done.
  std::signal(SIGPIPE, SIG_IGN);
  if (argc < 2) {
    usage(std::cerr);
    return 2;
  }
  const std::string command = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  // A PSTWIN_ variable nothing reads is most likely a misspelt one that the user thinks applies.
  // Said once: the processes this one starts (launch's nodes) do not see it.
  std::vector<std::string> unknown;
  for (const std::string& line : pstwin::cli::unknown_variable_warnings(pstwin::cli::process_environment(), &unknown))
    std::cerr << "pstwin: warning: " << line << "\n";
  for (const std::string& variable : unknown) ::unsetenv(variable.c_str());
  const bool is_help = command == "--help" || command == "-h" || command == "help";
  if (is_help && args.size() == 1) return help_command(args[0]);
  // A variable only `pstwin node` reads would be taken for a flag of this command (PSTWIN_OUT for
  // --out) and silently not act: said, and not passed on to the processes this one starts
  // (launch's nodes, which get their options from launch).
  if (command != "node" && command != "version" &&
      std::find(kCommands.begin(), kCommands.end(), command) != kCommands.end())
    for (const std::string& variable : pstwin::cli::node_variables_in(pstwin::cli::process_environment())) {
      std::cerr << "pstwin " << command << ": warning: " << pstwin::cli::node_variable_warning(command, variable)
                << "\n";
      ::unsetenv(variable.c_str());
    }
  // The processes that move messages reuse large blocks rather than mmap each one anew.
  if (command == "launch" || command == "node") {
    const auto tuning = pstwin::cli::tune_allocator();
    for (const std::string& note : tuning.notes) std::cerr << "pstwin " << command << ": " << note << "\n";
    // Said once: the nodes a launch starts do not see the variable glibc ignored anyway.
    for (const std::string& variable : tuning.malformed_variables) ::unsetenv(variable.c_str());
  }
  // Every error line of the command names it, whichever shared helper writes it.
  if (std::find(kCommands.begin(), kCommands.end(), command) != kCommands.end()) pstwin::cli::set_command_name(command);
  if (const auto code = run_command(command, args)) return finish_stdout(command, *code);
  if (is_help && args.size() > 1) {
    std::cerr << "pstwin: " << command << " takes one command at most, got '" << args[0] << "' and '" << args[1]
              << "'\n";
    return 2;
  }
  if ((command == "--version" || command == "version") && !args.empty()) {
    std::cerr << "pstwin: " << command << " takes no arguments, got '" << args[0] << "'\n";
    return 2;
  }
  if (command == "--version" || command == "version") return pstwin::cli::version_command();
  if (command == "--help" || command == "-h" || command == "help") {
    usage(std::cout);
    return 0;
  }
  std::cerr << "pstwin: unknown command '" << command << "'\n\n";
  usage(std::cerr);
  return 2;
}
