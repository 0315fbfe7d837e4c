// OutputLock: one run at a time per output folder, so two runs never mix their files.
#pragma once

#include <optional>
#include <string>

namespace pstwin::cli {

/// An exclusive flock(2) on DIR/.pstwin.lock, held until destroyed or the process exits (a
/// crashed run leaves the file but not the lock, so it never blocks the next run). The file
/// names the holder ("PID COMMAND", and "files-only" for Scope::kFilesOnly), for the refusal of
/// a second run. A run's lock covers the folders inside DIR too: no run takes a folder inside a
/// held one, nor one that holds a held folder (looked for down to three levels), unless the
/// holder is the run itself or a process that started it (launch's scheduler nodes lock
/// OUT/<variant> inside launch's OUT). The descriptor is closed on exec: processes a run starts
/// (launch's nodes) do not hold it; forked children (simulate's and sweep's variants, which
/// write into sub-folders) share it and take no lock of their own.
class OutputLock {
 public:
  /// What the holder writes: the whole tree under DIR (a run's variant folders), or only files
  /// directly in DIR (calibrate's two files), whose lock leaves runs in the folders inside alone
  /// and is not held off by runs there.
  enum class Scope { kFolderTree, kFilesOnly };
  /// Creates `dir` if needed and locks it for `command` ("simulate", "launch", "sweep").
  /// Returns nullopt with `error` set when the folder cannot be created or locked, naming the
  /// folder and, when another run holds it (or a folder enclosing it, or one inside it), that
  /// folder and that run's pid and command. A run refused for an enclosing folder creates nothing.
  /// `out_flag` is what the advice tells the user to change ("give this run another --out"): the
  /// flag, or the variable that gave the folder (PSTWIN_OUT), which every error then names after
  /// the folder ("cannot create output folder /proc/nope (from PSTWIN_OUT): ...").
  static std::optional<OutputLock> take(const std::string& dir, const std::string& command,
                                        std::string& error, Scope scope = Scope::kFolderTree,
                                        const std::string& out_flag = "--out");
  OutputLock(OutputLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  OutputLock& operator=(OutputLock&&) = delete;
  OutputLock(const OutputLock&) = delete;
  ~OutputLock();

 private:
  explicit OutputLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace pstwin::cli
