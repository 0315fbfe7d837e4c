// What a run killed mid-write leaves in its folder, made readable: the streamed files cut back
// to their last whole line, and the temporary files of its atomic writes removed
// (DESIGN.md, "Outputs", "A stopped variant's files").
#pragma once

#include <cstddef>
#include <string>

namespace pstwin {

/// Truncates the file at `path` just after its last '\n', so that it holds whole lines only: a
/// writer killed mid-write leaves the start of a line after them. Returns the bytes removed
/// (0: it ended with a whole line, is empty, or is not there). A symbolic link is not followed
/// (O_NOFOLLOW, as every output). Throws std::runtime_error "cannot cut PATH back to whole
/// lines: REASON" when it cannot read or truncate it.
std::size_t keep_whole_lines(const std::string& path);

/// Makes the run folder `dir`, whose writer (process `writer_pid`) was killed, hold whole
/// records only: metrics.csv and events.jsonl cut back to whole lines (keep_whole_lines), a
/// metrics.csv left empty given its header (kMetricsCsvHeader) so that it still names its
/// columns, and every "NAME.tmp.<writer_pid>" that write_file_atomically of that process left
/// (summary.json, trace.json, link_load.csv written at the end) removed. The files written
/// whole are then either whole or absent. Files not there stay absent; nothing else changes.
/// REQUIRES: the writer has ended (its parent reaped it). Throws std::runtime_error naming the
/// file that cannot be cut, written or removed.
void tidy_killed_run_folder(const std::string& dir, long writer_pid);

}  // namespace pstwin
