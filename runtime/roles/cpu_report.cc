#include "runtime/roles/cpu_report.h"

#include "runtime/errors.h"
#include "runtime/wire_json.h"

namespace pstwin {

nlohmann::json cpu_use_json(const CpuUse& use) {
  return {{"role_thread_s", use.role_thread_s}, {"process_s", use.process_s}, {"wall_s", use.wall_s}};
}

void add_cpu_use(nlohmann::json& report, const Env& env) {
  if (const auto use = env.cpu_use()) report["cpu"] = cpu_use_json(*use);
}

CpuUse cpu_use_from_json(const nlohmann::json& cpu, const std::string& what) {
  if (!cpu.is_object()) throw ProtocolError(what + ": cpu must be an object, got " + cpu.dump());
  CpuUse use;
  const auto member = [&](const char* key) {
    const double seconds = wire_json::number_member(cpu, key, what + ": cpu");
    if (seconds < 0) throw ProtocolError(what + ": cpu." + key + " must be >= 0, got " + std::to_string(seconds));
    return seconds;
  };
  use.role_thread_s = member("role_thread_s");
  use.process_s = member("process_s");
  use.wall_s = member("wall_s");
  return use;
}

}  // namespace pstwin
