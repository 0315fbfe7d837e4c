// Typed errors that say where the problem is, so a user can fix their input.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace pstwin {

/// A scenario is invalid. `pointer()` is the JSON pointer of the offending value ("/cluster/workers",
/// "" for the document itself); what() reads "<pointer>: <message>".
class ScenarioError : public std::runtime_error {
 public:
  ScenarioError(std::string pointer, const std::string& message)
      : std::runtime_error((pointer.empty() ? std::string("/") : pointer) + ": " + message),
        pointer_(std::move(pointer)) {}
  const std::string& pointer() const { return pointer_; }

 private:
  std::string pointer_;
};

/// A data file is unreadable or malformed. what() reads "<file>:<line>: <message>", or
/// "<file>: <message>" when the problem is not tied to a line (line 0: a bad IDX header).
class DataError : public std::runtime_error {
 public:
  DataError(std::string file, std::uint64_t line, const std::string& message)
      : std::runtime_error(describe(file, line, message)),
        file_(std::move(file)),
        line_(line) {}
  const std::string& file() const { return file_; }
  std::uint64_t line() const { return line_; }

 private:
  // Built with append: GCC 12 warns falsely (-Wrestrict) about chained operator+ here.
  static std::string describe(const std::string& file, std::uint64_t line, const std::string& message) {
    std::string s(file);
    if (line) s.append(":").append(std::to_string(line));
    return s.append(": ").append(message);
  }

  std::string file_;
  std::uint64_t line_;
};

/// A message could not be decoded or violates the protocol. what() names the problem; the
/// caller adds the peer when it knows it.
class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A checkpoint file or folder is unreadable, unwritable or malformed (runtime/checkpoint/).
/// what() names the problem and, where one is involved, the file.
class CheckpointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The job was stopped from outside its roles (a signal to a real scheduler's process: a user's
/// Ctrl-C, or the launcher ending a job it cannot go on with). Thrown by an Env's recv; what()
/// says by what ("stopped by SIGTERM"). The scheduler writes it as a "job_stopped" event, tells
/// every node to stop and rethrows; its caller still writes the outputs (DESIGN.md, "Outputs").
class JobStopped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace pstwin
