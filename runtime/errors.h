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

/// A data file is unreadable or malformed. what() reads "<file>:<line>: <message>"
/// (line 0 when the problem is not tied to a line, e.g. a bad IDX header).
class DataError : public std::runtime_error {
 public:
  DataError(std::string file, std::uint64_t line, const std::string& message)
      : std::runtime_error(file + ":" + std::to_string(line) + ": " + message),
        file_(std::move(file)),
        line_(line) {}
  const std::string& file() const { return file_; }
  std::uint64_t line() const { return line_; }

 private:
  std::string file_;
  std::uint64_t line_;
};

/// A message could not be decoded or violates the protocol. what() names the problem; the
/// caller adds the peer when it knows it.
class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace pstwin
