// `pstwin keygen FILE`: a fresh job key pair for nodes started by hand.
#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "net/curve_keys.h"

namespace pstwin::cli {

int keygen_command(const std::vector<std::string>& args) {
  const char* usage =
      "usage: pstwin keygen FILE\nWrites a new CURVE key pair for one job (mode 0600); "
      "give it to every node with --key-file.\n";
  // Asked for, the help is the output (stdout, status 0); otherwise it explains an error.
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    std::cout << usage;
    return 0;
  }
  if (args.size() != 1 || args[0].empty() || args[0][0] == '-') {
    std::cerr << usage;
    return 2;
  }
  if (std::filesystem::exists(args[0])) {
    std::cerr << "pstwin keygen: " << args[0] << " exists; not overwriting a job's key\n";
    return 2;
  }
  try {
    net::write_key_file(args[0], net::make_job_keys());
  } catch (const std::exception& e) {
    std::cerr << "pstwin keygen: " << e.what() << "\n";
    return 2;  // the FILE given cannot be written: bad input, not a failed run
  }
  std::cout << "wrote " << args[0] << "\n";
  return 0;
}

}  // namespace pstwin::cli
