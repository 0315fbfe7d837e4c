#include "runtime/scenario/strict_json.h"

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_set>
#include <utility>
#include <vector>

#include "runtime/errors.h"
#include "runtime/scenario/json_fields.h"

namespace pstwin {
namespace {

using nlohmann::json;

/// Follows nlohmann's parser callbacks to know the JSON pointer of the value being parsed, and
/// refuses a key that its object already has.
class PointerTracker {
 public:
  explicit PointerTracker(std::string base) : base_(std::move(base)) {}

  /// The pointer of the value the parser is in now (the key just read, or the next array slot).
  std::string current() const {
    std::string out = base_;
    for (const Frame& f : frames_)
      out = f.array ? out + "/" + std::to_string(f.index) : scenario_json::child_pointer(out, f.key);
    return out;
  }

  bool operator()(int /*depth*/, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        // nlohmann parses any depth, but copying or printing a value recurses once per level: a
        // file of 200,000 brackets overflowed the stack. A scenario needs a handful of levels.
        if (frames_.size() >= kMaxJsonDepth)
          throw ScenarioError(current(), "nested more than " + std::to_string(kMaxJsonDepth) +
                                             " levels deep; a scenario needs far fewer");
        frames_.emplace_back();
        frames_.back().array = event == json::parse_event_t::array_start;
        break;
      case json::parse_event_t::key: {
        Frame& f = frames_.back();
        f.key = parsed.get<std::string>();
        if (!f.keys.insert(f.key).second) {
          const std::string here = current();
          const std::string object = here.substr(0, here.rfind('/'));
          throw ScenarioError(here, "key \"" + f.key + "\" is given twice in " +
                                        (object.empty() ? std::string("the top-level object") : object) +
                                        "; JSON keys must be unique (which value was meant?)");
        }
        break;
      }
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        frames_.pop_back();
        next_slot();
        break;
      case json::parse_event_t::value: next_slot(); break;
    }
    return true;  // keep every value
  }

 private:
  struct Frame {
    bool array = false;
    std::size_t index = 0;             // array: the slot of the next value
    std::string key;                   // object: the key just read
    std::unordered_set<std::string> keys;  // object: every key read so far
  };

  /// A value is complete: the enclosing array moves on to its next slot.
  void next_slot() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
  }

  std::string base_;
  std::vector<Frame> frames_;
};

/// The number text in nlohmann's "number overflow parsing '1e400'".
std::string overflowing_literal(const std::string& what) {
  const std::size_t open = what.find('\''), close = what.rfind('\'');
  if (open == std::string::npos || close <= open) return "the number";
  return what.substr(open + 1, close - open - 1);
}

}  // namespace

json parse_strict_json(std::string_view text, const std::string& base_pointer) {
  PointerTracker tracker(base_pointer);
  try {
    // The callback is copied into the parser; a reference wrapper keeps our tracker the one used.
    return json::parse(text.begin(), text.end(), json::parser_callback_t(std::ref(tracker)));
  } catch (const json::out_of_range& e) {
    if (e.id != 406) throw;
    throw ScenarioError(tracker.current(), "number " + overflowing_literal(e.what()) +
                                               " is outside the range of a double (magnitude at most "
                                               "1.7976931348623157e308)");
  }
}

std::string read_json_file_text(const std::string& path, const std::string& what, const std::string& pointer) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status))
    throw ScenarioError(pointer, "cannot read " + what + " (" + path + "): " +
                                     (ec ? ec.message() : std::string(std::strerror(ENOENT))));
  if (fs::is_directory(status)) throw ScenarioError(pointer, what + " (" + path + ") is a folder, not a JSON file");
  if (!fs::is_regular_file(status))
    throw ScenarioError(pointer, what + " (" + path + ") is not a regular file (a device, FIFO or socket)");
  const std::uintmax_t size = fs::file_size(path, ec);
  if (!ec && size > kMaxScenarioFileBytes)
    throw ScenarioError(pointer, what + " (" + path + ") has " + std::to_string(size) + " bytes; at most " +
                                     std::to_string(kMaxScenarioFileBytes) + " are read");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ScenarioError(pointer, "cannot read " + what + " (" + path + "): " + std::strerror(errno));
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) throw ScenarioError(pointer, "cannot read " + what + " (" + path + ")");
  return text.str();
}

}  // namespace pstwin
