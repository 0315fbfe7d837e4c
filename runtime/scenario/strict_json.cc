#include "runtime/scenario/strict_json.h"

#include <cstddef>
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

}  // namespace pstwin
