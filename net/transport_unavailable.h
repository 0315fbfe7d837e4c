// A transport that cannot carry a job here at all: a fault of the machine or the network, the
// same for every variant of a scenario, not of the variant that met it.
#pragma once

#include <stdexcept>

namespace pstwin::net {

/// Thrown when UCX cannot start (UCX_TLS=bogus) or starts but reaches none of a node's peers
/// (UCX_TLS=self). `pstwin node` exits with kTransportUnavailableExit for it, so that `launch`
/// stops rather than run the next variant into the same wall.
class TransportUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The exit status of a node whose transport is unavailable (and of `launch` then).
constexpr int kTransportUnavailableExit = 3;

}  // namespace pstwin::net
