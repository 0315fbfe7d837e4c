// Reading a whole data file into memory, with errors that name it.
#pragma once

#include <string>

namespace pstwin {

/// The bytes of the file at `path`, read in chunks (so pipes and /dev/stdin work too). Throws
/// DataError (line 0) naming the file when it cannot be opened or read.
std::string read_whole_file(const std::string& path);

}  // namespace pstwin
