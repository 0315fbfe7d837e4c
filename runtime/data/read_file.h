// Reading a whole data file into memory, with errors that name it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace pstwin {

/// The bytes of the file at `path`, read in chunks (so pipes and /dev/stdin work too). Throws
/// DataError (line 0) naming the file when it cannot be opened or read.
std::string read_whole_file(const std::string& path);

/// The first `max_bytes` bytes of the file at `path`, or all of it when it is not longer; sets
/// `whole` to say which. Throws DataError (line 0) naming the file as read_whole_file does.
std::string read_file_head(const std::string& path, std::size_t max_bytes, bool& whole);

/// The number of data lines of the file at `path` from byte `offset` on, counting up to
/// `stop_at` and no further: lines that are not blank (spaces, tabs and a CRLF's '\r' only) and
/// whose first other character is not `comment` ('\0': no comments). A last line without '\n'
/// counts. Throws DataError (line 0) naming the file when it cannot be opened or read.
std::uint64_t count_data_lines(const std::string& path, std::uint64_t offset, char comment, std::uint64_t stop_at);

}  // namespace pstwin
