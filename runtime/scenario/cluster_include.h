// "cluster": {"include": "calibrated.json", ...}: cluster keys read from a file of their own
// (what `pstwin calibrate` writes), under the keys the scenario writes itself. Internal to
// runtime/scenario/: parse_one_scenario resolves the include before it validates the cluster.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/errors.h"

namespace pstwin {

/// What resolve_cluster_include merged, kept to say where a later error lies.
struct ClusterInclude {
  std::string file;            ///< the include as written ("calibrated.json"); empty: none
  std::string path;            ///< the file read (resolved against the scenario's folder)
  nlohmann::json included;     ///< the file's object
  nlohmann::json own;          ///< the scenario's cluster object, without "include"
};

/// `doc` with its "/cluster/include" replaced by the file's keys: the file holds one JSON object
/// of cluster keys, and the scenario's own cluster keys are merged over it (RFC 7386 merge-patch:
/// objects merge key by key, any other value replaces the included one). A relative path is read
/// from `base_dir` (the scenario file's folder). Returns `doc` unchanged when there is no include
/// (`info`, if given, then gets an empty file). Throws ScenarioError at /cluster/include for an
/// include that is not a non-empty string, a file that cannot be read, text that is not JSON (with
/// its line), or a document that is not an object or holds an include of its own; strict-JSON
/// errors inside the file (a key given twice) name the file and the pointer inside it.
nlohmann::json resolve_cluster_include(const nlohmann::json& doc, const std::string& base_dir,
                                       ClusterInclude* info);

/// The message of the error that validating the scenario with `cluster` in place of its
/// resolved cluster gives; "" when it is valid.
using ClusterCheck = std::function<std::string(const nlohmann::json& cluster)>;

/// `e` (thrown while validating the resolved document) restated for the user: when its pointer
/// lies under /cluster at a value that came from the included file (the scenario wrote nothing
/// there), the message names the file and the pointer inside it
/// ("/cluster/worker/devic: in the included file \"calibrated.json\" at /worker/devic: unknown
/// key ..."); otherwise `e` as it is. But when that value sits in an object both wrote (merged)
/// and `check` says the file's object alone does not give `e`, the scenario's keys there are at
/// fault together with the file's: the error is at the scenario's object, naming its keys, the
/// file's pointer and the value `e` was at ("/cluster/worker/device: the scenario's keys here
/// (\"preset\") and those of the included file ... at /worker/device do not go together: ...").
ScenarioError attribute_to_include(const ScenarioError& e, const ClusterInclude& info, const ClusterCheck& check);

/// How a --set or a variant's "set" is written, for include_override_hint's advice.
enum class OverrideForm { kCommandLine, kVariant };

/// When an override of `pointer` in `doc` (before its include is resolved) failed because the
/// scenario lacks what the file that `doc`'s /cluster/include names gives (the parent, for a
/// value; the key itself, for a null that removes), the message that says so and how to do it:
/// a value goes in as an object merged over the file's (`--set '/cluster/worker={"device":
/// {"flops": "10Gflops"}}'`, or in `form` kVariant the same as a "set" entry), a list whole; a
/// removal cannot be made from the scenario. "" when that is not the cause (no include, a file
/// that does not resolve, a pointer the file lacks too). `value` is the value set (null: removal).
std::string include_override_hint(const nlohmann::json& doc, const std::string& pointer, const nlohmann::json& value,
                                  const std::string& base_dir, OverrideForm form);

/// A --set of "/cluster/include": a relative path there is relative to the working directory,
/// not to the scenario's folder, so it is made absolute here. Other pointers and non-strings
/// are left alone (`value` is returned as given).
nlohmann::json include_override_value(const std::string& pointer, nlohmann::json value);

}  // namespace pstwin

namespace pstwin {

/// Checks "cluster.calibrated", the record `pstwin calibrate` writes of where its figures come
/// from; the model uses none of it. An object of: "machine", "date", "pstwin_version",
/// "transport", "device" (non-empty strings), "cores" (an integer >= 1), "memcpy_bandwidth" (a
/// bandwidth, "12.3GBps"), "quick" (a boolean), "transport_link" (a link, {"bandwidth",
/// "latency"}: the transport's whole message time as one line, for a model without host costs),
/// "transport_hosts" (two non-empty host names: calibrate --hostfile measured the transport
/// between them) and "kernels_measured_on" (a non-empty string: where the rest was measured).
/// Throws ScenarioError at the offending value.
void check_calibration_record(const nlohmann::json& v, const std::string& ptr);

}  // namespace pstwin
