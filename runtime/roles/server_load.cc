#include "runtime/roles/server_load.h"

#include "runtime/errors.h"
#include "runtime/wire_json.h"

namespace pstwin {

nlohmann::json ServerLoad::to_json() const {
  return {{"requests", requests}, {"bytes_in", bytes_in}, {"bytes_out", bytes_out}, {"busy_s", busy_s}};
}

ServerLoad ServerLoad::from_json(const nlohmann::json& j, const std::string& what) {
  if (!j.is_object()) throw ProtocolError(what + ": \"load\" must be an object");
  ServerLoad l;
  l.requests = wire_json::integer_member<std::uint64_t>(j, "requests", what);
  l.bytes_in = wire_json::integer_member<std::uint64_t>(j, "bytes_in", what);
  l.bytes_out = wire_json::integer_member<std::uint64_t>(j, "bytes_out", what);
  l.busy_s = wire_json::number_member(j, "busy_s", what);
  if (!(l.busy_s >= 0)) throw ProtocolError(what + ": \"busy_s\" must be >= 0");
  return l;
}

}  // namespace pstwin
