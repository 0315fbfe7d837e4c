// Checking, before minutes of work, that an output file can be written where it is asked for.
#pragma once

#include <string>

namespace pstwin::cli {

/// Why a file cannot be written at `path` the way write_file_atomically writes it (a
/// temporary file beside it, renamed over it), or "" when it can. Checks that `path` is not a
/// folder or a device, FIFO or socket, that its folder exists, and then creates, writes one byte
/// to and removes the temporary file itself, so a read-only or full file system, a missing
/// permission or a pseudo file system (/proc) is found now. Leaves nothing behind; never throws.
std::string cannot_write_file(const std::string& path);

}  // namespace pstwin::cli
