// Writing an output file whole or not at all, so that a reader (the launcher, a plot script, a
// sweep) never sees half of it when the writer is killed or the disk fills.
#pragma once

#include <string>
#include <string_view>

namespace pstwin {

/// Writes `text` to `path` so that a reader sees either the previous file (or none) or all of
/// `text`: it writes PATH.tmp.<pid>, checks every write, and renames it over PATH (rename(2) is
/// atomic within one file system). Throws std::runtime_error naming `path` and the system's
/// reason when any step fails; the temporary file is removed then and PATH is left as it was.
/// A symbolic link at PATH is replaced by the file, never followed; a device or FIFO at PATH
/// cannot be replaced and is written into (no atomicity to have).
void write_file_atomically(const std::string& path, std::string_view text);

/// The temporary file write_file_atomically of process `pid` writes before renaming it over
/// `path`: "PATH.tmp.PID". One that remains belongs to a writer killed mid-write.
std::string atomic_temporary_name(const std::string& path, long pid);

}  // namespace pstwin
