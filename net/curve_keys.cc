#include "net/curve_keys.h"

#include "runtime/output/output_file.h"

#include <zmq.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace pstwin::net {

CurveKeys make_job_keys() {
  if (!zmq_has("curve"))
    throw std::runtime_error("this libzmq has no CURVE support; run with --insecure or install a "
                             "libzmq built with libsodium");
  char pub[41], sec[41];
  if (zmq_curve_keypair(pub, sec) != 0)
    throw std::runtime_error(std::string("zmq_curve_keypair: ") + zmq_strerror(zmq_errno()));
  return CurveKeys{pub, sec};
}

CurveKeys read_key_file(const std::string& path) {
  if (path.empty()) throw std::runtime_error("the key file's path is empty");
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read key file " + path + ": " + std::strerror(errno));
  // A folder opens but reads nothing: said as what it is, not as a file without keys.
  if (std::filesystem::is_directory(path)) throw std::runtime_error("key file " + path + " is a folder");
  CurveKeys keys;
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string name, value;
    fields >> name >> value;
    std::uint8_t decoded[32];
    if (value.size() != 40 || (name != "public" && name != "secret") ||
        zmq_z85_decode(decoded, value.c_str()) == nullptr)
      throw std::runtime_error(path + ":" + std::to_string(line_no) +
                               ": expected 'public <40 Z85 characters>' or 'secret <...>'");
    (name == "public" ? keys.public_z85 : keys.secret_z85) = value;
  }
  if (keys.public_z85.empty() || keys.secret_z85.empty())
    throw std::runtime_error(path + ": needs both a 'public' and a 'secret' line");
  // A pair put together from two files would fail every handshake, each side blaming the other.
  char derived[41];
  if (zmq_curve_public(derived, keys.secret_z85.c_str()) == 0 && keys.public_z85 != derived)
    throw std::runtime_error(path + ": its public key is not the secret key's (the two lines come from "
                             "different key pairs)");
  return keys;
}

void write_key_file(const std::string& path, const CurveKeys& keys) {
  // Mode 0600 from the start, created anew: a link planted at `path` is removed, not followed.
  OutputFileStream out(path, OutputOpen::kPrivate, "key file");
  out << "# pstwin job key pair (CurveZMQ); every node of the job needs this file\n"
      << "public " << keys.public_z85 << "\nsecret " << keys.secret_z85 << "\n";
  out.flush();
  if (!out) throw std::runtime_error("cannot write key file " + path);
}

}  // namespace pstwin::net
