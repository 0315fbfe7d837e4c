#include "net/curve_keys.h"

#include "runtime/output/output_file.h"

#include <zmq.h>

#include <cerrno>
#include <cstring>
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
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read key file " + path);
  CurveKeys keys;
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string name, value;
    fields >> name >> value;
    if (value.size() != 40 || (name != "public" && name != "secret"))
      throw std::runtime_error(path + ":" + std::to_string(line_no) +
                               ": expected 'public <40 Z85 characters>' or 'secret <...>'");
    (name == "public" ? keys.public_z85 : keys.secret_z85) = value;
  }
  if (keys.public_z85.empty() || keys.secret_z85.empty())
    throw std::runtime_error(path + ": needs both a 'public' and a 'secret' line");
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
