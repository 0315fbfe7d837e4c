#include "cli/launch_flags.h"

#include <cstdint>

namespace pstwin::cli {

std::string launch_flags_conflict(const boost::program_options::variables_map& vm) {
  // A path given empty would be read as this folder (made absolute) or as no file at all.
  for (const char* flag : {"resume", "key-file", "hostfile"})
    if (vm.count(flag) && vm[flag].as<std::string>().empty()) return std::string("--") + flag + " is empty: give a path";
  const std::string transport = vm["transport"].as<std::string>();
  if (transport != "zmq" && transport != "ucx" && transport != "inproc")
    return "--transport must be zmq, ucx or inproc, not '" + transport + "'";
  if (transport == "ucx" && !vm.count("insecure"))
    return "--transport ucx needs --insecure: UCX has no authentication, so it is for trusted networks only";
  if (vm.count("insecure") && vm.count("key-file")) return "--insecure and --key-file contradict each other; choose one";
  // The flags of a job on other machines mean nothing without --hostfile: refused rather than
  // ignored, since the user expects them to act.
  for (const char* flag : {"scheduler-host", "ssh-command"})
    if (vm.count(flag) && !vm[flag].defaulted() && !vm.count("hostfile"))
      return std::string("--") + flag +
             " needs --hostfile: without one every node runs on this machine and dials the scheduler on loopback";
  if (transport != "inproc") return "";
  if (vm.count("hostfile")) return "--hostfile needs --transport zmq or ucx";
  if (vm["port"].as<std::uint16_t>() != 0) return "--port needs --transport zmq or ucx: a job in process listens nowhere";
  // "none" asks for what a job in process has anyway (scripts pass it to every transport).
  if (!vm["metrics-address"].defaulted() && vm["metrics-address"].as<std::string>() != "none")
    return "--metrics-address needs --transport zmq or ucx: a job in process serves no live metrics (give none, or "
           "leave the flag out)";
  return "";
}

}  // namespace pstwin::cli
