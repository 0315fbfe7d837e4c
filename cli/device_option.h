// --device for the commands that run roles: which kernels they compute with (auto, cpu, cuda),
// resolved once per command so that every role agrees and the user is told what was chosen.
#pragma once

#include <optional>
#include <string>

#include <boost/program_options.hpp>

namespace pstwin::cli {

/// Adds "--device auto|cpu|cuda" to `desc`; `default_help` says what applies without it.
void add_device_option(boost::program_options::options_description& desc, const std::string& default_help);

/// --device when given, else `fallback`. Prints "pstwin COMMAND: --device must be auto, cpu or
/// cuda, not 'X'" (`shown` instead of --device when given: the variable it came from, e.g.
/// PSTWIN_DEVICE) and returns nullopt (exit status 2) for any other name.
std::optional<std::string> requested_device(const boost::program_options::variables_map& vm,
                                            const std::string& fallback, const std::string& command,
                                            const std::string& shown = "");

/// Resolves `device` to "cpu" or "cuda" the way make_backend (kernels/select_backend.h) would,
/// and sets *chosen to the line describing the choice ("cuda (GPU 0: NVIDIA H200 ...)", or
/// "cpu; auto: <why no GPU>"). A GPU is probed in a short-lived child process, so this process
/// never initialises CUDA (which would break the children that simulate forks). Prints
/// "pstwin COMMAND: <why>" and returns nullopt (exit status 2) when "cuda" cannot be used.
std::optional<std::string> resolve_device(const std::string& device, const std::string& command,
                                          std::string* chosen);

}  // namespace pstwin::cli
