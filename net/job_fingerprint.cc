#include "net/job_fingerprint.h"

#include <filesystem>
#include <set>

#include "runtime/errors.h"
#include "runtime/sha256_hex.h"

namespace pstwin::net {

namespace {

std::string size_of(const std::string& path) {
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(path, ec);
  return ec ? "missing" : std::to_string(bytes) + " bytes";
}

std::string escape_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

std::string difference_under(const nlohmann::json& a, const nlohmann::json& b, const std::string& at) {
  if (a.type() != b.type()) return at;
  if (a.is_object()) {
    std::set<std::string> keys;
    for (const auto& [k, v] : a.items()) keys.insert(k);
    for (const auto& [k, v] : b.items()) keys.insert(k);
    for (const auto& k : keys) {
      const std::string here = at + "/" + escape_token(k);
      if (!a.contains(k) || !b.contains(k)) return here;
      const auto d = difference_under(a[k], b[k], here);
      if (!d.empty()) return d;
    }
    return "";
  }
  if (a.is_array()) {
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
      const auto d = difference_under(a[i], b[i], at + "/" + std::to_string(i));
      if (!d.empty()) return d;
    }
    return a.size() == b.size() ? "" : at + "/" + std::to_string(std::min(a.size(), b.size()));
  }
  return a == b ? "" : at;
}

std::string value_at(const nlohmann::json& doc, const std::string& pointer) {
  const nlohmann::json::json_pointer p(pointer);
  return doc.contains(p) ? doc.at(p).dump() : "nothing";
}

}  // namespace

nlohmann::json job_description(const Scenario& scenario, const std::string& variant) {
  nlohmann::json s = scenario.source;
  s.erase("output");
  if (s.contains("training") && s["training"].is_object()) s["training"].erase("device");
  if (scenario.data && s.contains("data") && s["data"].is_object()) {
    const DataSection& d = *scenario.data;
    const std::pair<const char*, const std::string*> files[] = {
        {"file", &d.file}, {"train", &d.train}, {"train_labels", &d.train_labels},
        {"test", &d.test}, {"test_labels", &d.test_labels}};
    for (const auto& [key, path] : files)
      if (s["data"].contains(key)) s["data"][key] = size_of(*path);
  }
  return {{"scenario", s}, {"variant", variant}};
}

nlohmann::json job_fingerprint(const nlohmann::json& job) {
  const std::string text = job.dump();
  return {{"sha256", sha256_hex(text.data(), text.size())}, {"job", job}};
}

std::string first_difference(const nlohmann::json& a, const nlohmann::json& b) {
  return difference_under(a, b, "");
}

std::string fingerprint_mismatch(const nlohmann::json& ours, const nlohmann::json& theirs) {
  const auto malformed = [](const std::string& what) {
    return ProtocolError("kRegister: malformed fingerprint: " + what);
  };
  if (!theirs.is_object()) throw malformed("not an object");
  if (!theirs.contains("sha256") || !theirs["sha256"].is_string() ||
      theirs["sha256"].get<std::string>().size() != 64 ||
      theirs["sha256"].get<std::string>().find_first_not_of("0123456789abcdef") != std::string::npos)
    throw malformed("\"sha256\" is not 64 lower-case hex digits");
  const auto& job = theirs.contains("job") ? theirs["job"] : nlohmann::json();
  if (!job.is_object() || !job.contains("scenario") || !job["scenario"].is_object() ||
      !job.contains("variant") || !job["variant"].is_string())
    throw malformed("\"job\" is not {\"scenario\": object, \"variant\": string}");
  if (theirs["sha256"] == ours["sha256"]) return "";
  const auto& mine = ours["job"];
  if (job["variant"] != mine["variant"])
    return "it runs variant " + job["variant"].dump() + ", the scheduler " + mine["variant"].dump() +
           " (--variant)";
  // --transport ucx is in the job (a ZeroMQ-only node could not reach the others' data plane).
  const auto transport = [](const nlohmann::json& j) { return j.contains("transport") ? j["transport"].dump() : "\"zmq\""; };
  if (transport(job) != transport(mine))
    return "it runs --transport " + transport(job) + ", the scheduler " + transport(mine);
  const std::string at = first_difference(mine["scenario"], job["scenario"]);
  if (at.empty()) throw malformed("\"sha256\" does not match its \"job\"");
  return "its scenario differs at " + at + " (the scheduler's: " + value_at(mine["scenario"], at) +
         ", this node's: " + value_at(job["scenario"], at) + ")";
}

}  // namespace pstwin::net
