// Opening an output file without following a symbolic link planted in the output folder: a
// link at OUT/bsp/job.key must not make a run write its secret into the link's target.
#pragma once

#include <memory>
#include <ostream>
#include <streambuf>
#include <string>

namespace pstwin {

/// How open_output_file opens PATH.
enum class OutputOpen {
  kTruncate,  ///< create or empty it (a streamed file: metrics.csv, events.jsonl)
  kAppend,    ///< create or append to it (events.jsonl after the run, the lock file)
  kPrivate,   ///< remove what is at PATH (a link is removed, never followed), then create it
              ///< anew, exclusively, with mode 0600 from the start (a key file)
};

/// Opens `path` for writing with O_NOFOLLOW|O_CLOEXEC and returns the descriptor (the caller
/// closes it). A symbolic link at `path` is refused (kTruncate, kAppend) or removed first
/// (kPrivate), never followed: that is pstwin's rule for every output file (DESIGN.md,
/// "Outputs"). Throws std::runtime_error "cannot write [KIND ]PATH: REASON" ("it is a symbolic
/// link; pstwin does not write through links, remove it") when it cannot; `kind` names what the
/// file is for the user ("key file"), or nothing.
int open_output_file(const std::string& path, OutputOpen how, const std::string& kind = "");

/// An std::ostream over a file opened by open_output_file. Throws as open_output_file does;
/// write errors set badbit, as std::ofstream's do. Closes the file on destruction.
class OutputFileStream : public std::ostream {
 public:
  OutputFileStream(const std::string& path, OutputOpen how, const std::string& kind = "");
  ~OutputFileStream() override;
  OutputFileStream(const OutputFileStream&) = delete;
  OutputFileStream& operator=(const OutputFileStream&) = delete;

 private:
  std::unique_ptr<std::streambuf> buf_;
};

}  // namespace pstwin
