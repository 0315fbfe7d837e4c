// What every node of a real job must agree on, sent with its registration so that the scheduler
// can turn away a node started with another scenario, variant or data.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "runtime/scenario/scenario.h"

namespace pstwin::net {

/// The job a node runs, as canonical JSON: {"scenario": the scenario after --set, "variant":
/// its name}. Left out of "scenario", as they may differ from node to node: /output (the
/// scheduler alone writes), /training/device (each node computes on its own hardware). Data file
/// paths (/data/train, /data/test, /data/train_labels, /data/test_labels, /data/file) may differ
/// too, but their contents may not: each is replaced by the file's size, "N bytes" ("missing"
/// when it cannot be read). Object keys are sorted (nlohmann's map), so dump() is canonical.
nlohmann::json job_description(const Scenario& scenario, const std::string& variant);

/// (A job run with --transport ucx adds "transport": "ucx" to the description; fingerprint_mismatch
/// names a transport that differs.)
/// The fingerprint a node registers with: {"sha256": hex SHA-256 of job.dump(), "job": job}.
nlohmann::json job_fingerprint(const nlohmann::json& job);

/// The first JSON pointer at which `a` and `b` differ, walking objects in key order and arrays by
/// index (a key on one side only counts as a difference there); "" when they are equal.
std::string first_difference(const nlohmann::json& a, const nlohmann::json& b);

/// Why a node whose fingerprint is `theirs` may not join the job whose fingerprint is `ours`, or
/// "" when it may. Says where they first differ, as a pointer into the scenario ("/training/
/// batch_size") or "the variant", with both values ("the scheduler has 8, this node 16").
/// Throws ProtocolError when `theirs` is not {"sha256": 64 hex digits, "job": {"scenario": object,
/// "variant": string}}.
std::string fingerprint_mismatch(const nlohmann::json& ours, const nlohmann::json& theirs);

}  // namespace pstwin::net
