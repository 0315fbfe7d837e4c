#include "runtime/wire_json.h"

#include <cmath>

namespace pstwin::wire_json {

json parse_object(std::string_view body, const std::string& what) {
  json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
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
