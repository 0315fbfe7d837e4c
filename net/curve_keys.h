// CURVE credentials of a job: who may talk to whom (ZeroMQ's CurveZMQ, RFC 26).
#pragma once

#include <string>

namespace pstwin::net {

/// One key pair shared by every node of a job, Z85-encoded (40 characters each). Every node's
/// receiving socket is a CURVE server with this key pair and admits only clients that prove they
/// hold the same pair, so only holders of the job's secret key can connect, push or pull.
struct CurveKeys {
  std::string public_z85;
  std::string secret_z85;
};

/// A fresh key pair from libsodium's generator (zmq_curve_keypair). Throws std::runtime_error
/// when this libzmq lacks CURVE support.
CurveKeys make_job_keys();

/// Reads a key file: two lines "public <z85>" and "secret <z85>" (the format write_key_file
/// writes). Throws std::runtime_error naming the file (and the line, and why it cannot be read)
/// when it is missing, unreadable, a folder or malformed: a key that is not 40 Z85 characters, a
/// missing line, or a public key that does not belong to the secret one.
CurveKeys read_key_file(const std::string& path);

/// Writes `keys` to `path` with permissions 0600. Throws std::runtime_error on failure.
void write_key_file(const std::string& path, const CurveKeys& keys);

}  // namespace pstwin::net
