// launch's flags that only go together in some ways, checked before anything is read, resolved or
// tried: a mistake in how they combine is said as such, not as whatever the first check that
// looks up a name or a port happens to find (a trial's --scheduler-host bad.invalid without
// --hostfile read "cannot resolve").
#pragma once

#include <string>

#include <boost/program_options.hpp>

namespace pstwin::cli {

/// Why launch's parsed flags `vm` are wrong whatever the scenario, or "" when they are not: an empty
/// --resume, --key-file or --hostfile; --transport not zmq, ucx
/// or inproc; ucx without --insecure; --insecure with --key-file; --scheduler-host or
/// --ssh-command without --hostfile; --hostfile, --port other than 0, or --metrics-address
/// other than none with --transport inproc. The text follows "pstwin launch: ". Never throws.
std::string launch_flags_conflict(const boost::program_options::variables_map& vm);

}  // namespace pstwin::cli
