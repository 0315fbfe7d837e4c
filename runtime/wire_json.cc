#include "runtime/wire_json.h"

#include <cmath>

namespace pstwin::wire_json {

json parse_object(std::string_view body, const std::string& what) {
  // Copying or printing a value recurses once per level, so a body nested without bound could
  // overflow the stack; no body on the wire needs more than a few levels.
  const json::parser_callback_t depth_limit = [&what](int depth, json::parse_event_t event, json&) {
    if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
        depth >= static_cast<int>(kMaxBodyDepth))
      throw ProtocolError(what + ": body nested more than " + std::to_string(kMaxBodyDepth) + " levels deep");
    return true;
  };
  json j = json::parse(body, depth_limit, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw ProtocolError(what + ": body is not JSON");
  if (!j.is_object()) throw ProtocolError(what + ": body must be a JSON object, got " + j.dump());
  return j;
}

const json& member(const json& j, const char* key, const std::string& what) {
  const auto it = j.find(key);
  if (it == j.end()) throw ProtocolError(what + ": no \"" + key + "\"");
  return *it;
}

std::string string_member(const json& j, const char* key, const std::string& what) {
  const json& v = member(j, key, what);
  if (!v.is_string()) throw ProtocolError(what + ": \"" + key + "\" must be a string, got " + v.dump());
  return v.get<std::string>();
}

double number_member(const json& j, const char* key, const std::string& what) {
  const json& v = member(j, key, what);
  if (!v.is_number() || !std::isfinite(v.get<double>()))
    throw ProtocolError(what + ": \"" + key + "\" must be a finite number, got " + v.dump());
  return v.get<double>();
}

}  // namespace pstwin::wire_json
