// Checking the hosts a command is given before anything starts: a --bind that is not a host, an
// address this machine cannot listen at, or a name others are to dial that does not resolve, is
// refused as the command starts, naming the flag, rather than ignored or found after the output
// folder is taken and the nodes started.
#pragma once

#include <string>

namespace pstwin::net {

/// Why `host` is not a host given alone (what --bind and launch's --scheduler-host take), or ""
/// when it is: an IPv4 address, an IPv6 address (with or without brackets), an interface name,
/// a host name, or "*" (every interface, for listening), without a port or a scheme. Reasons, to
/// follow "--bind 'TEXT': ": "empty: ...", "an endpoint, not a host: give the host alone", "a
/// port ('70000') does not belong there: give the host alone", "white space in a host", "'['
/// without ']' ...", "[x] is not an IPv6 address". Whether the host exists here is
/// check_listen_here's to say.
std::string host_only_error(const std::string& host);

/// Binds a socket at `endpoint` ("tcp://HOST:PORT", port "*" for any) and lets it go again, to
/// learn now whether a node can listen there. Throws std::invalid_argument with bind_tcp's reason
/// (net/tcp_address.h), e.g. "cannot listen at tcp://10.9.9.9:*: 10.9.9.9 is not an address of
/// this machine", "... cannot resolve host H (...)", "... address already in use (...)". The port
/// can still be taken by another process between this check and the node's own bind; that later
/// failure names the address too.
void check_listen_here(const std::string& endpoint);

/// Why `host`, a host given alone for other nodes to dial (launch's --scheduler-host, node's
/// --advertise), cannot be dialled, or "" when it can as far as this machine can tell: one of
/// host_only_error's reasons (an IPv6 address may have brackets or not: with no port beside it,
/// either reads one way), "* names no machine to dial: ...", or "cannot resolve host H (why)".
/// Whether a loopback name suits the job is the caller's to say.
std::string dial_host_error(const std::string& host);

}  // namespace pstwin::net
