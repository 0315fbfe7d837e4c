// Checking a live-metrics address before a job starts: that it can be served here at all.
#pragma once

#include <string>

namespace pstwin::net {

/// Checks that this machine can serve HTTP at `address` ("HOST:PORT", "[v6]:PORT"), before
/// anything starts: it parses (parse_metrics_address), HOST resolves, and a TCP socket binds
/// there (then closes; port 0 binds any free port). Throws std::invalid_argument saying what is
/// wrong: the parse's reason, "cannot resolve host H (...)", "no interface of this machine has
/// address H", or "port P is taken". The job can still lose a free port to another process
/// before it binds; that later failure names the address too.
void check_metrics_address_here(const std::string& address);

}  // namespace pstwin::net
