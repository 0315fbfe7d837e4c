// The "compression" section: what it parses to, its defaults, and each refusal at its pointer;
// a variant's "set" and a --set override reach it like any other field.
#include <gtest/gtest.h>

#include <string>

#include "runtime/errors.h"
#include "runtime/scenario/scenario.h"
#include "tests/scenario_test_support.h"

namespace pstwin {
namespace {

using nlohmann::json;
using testing_support::error_message;
using testing_support::error_pointer;

json base() {
  return json::parse(R"({
    "name": "c", "seed": 1,
    "data": {"format": "libsvm", "train": "a.txt", "test": "b.txt"},
    "model": {"type": "logistic"},
    "training": {"iterations": 3, "batch_size": 8, "learning_rate": 0.1},
    "consistency": [{"mode": "bsp"}],
    "cluster": {"workers": 2, "servers": 1,
                "worker": {"device": "cpu", "link": {"bandwidth": "1Gbps", "latency": "50us"}},
                "server": {"device": "cpu", "link": {"bandwidth": "1Gbps", "latency": "50us"}}}
  })");
}

TEST(ScenarioCompression, AbsentMeansNothingIsCompressed) {
  const Scenario s = parse_scenario(base());
  EXPECT_EQ(s.compression.push.format, ValueFormat::kFloat32);
  EXPECT_EQ(s.compression.pull.format, ValueFormat::kFloat32);
  EXPECT_EQ(s.compression.clip, CompressionConfig::Clip::kNone);
}

TEST(ScenarioCompression, ParsesFormatsRatioFeedbackAndClip) {
  json doc = base();
  doc["compression"] = json::parse(R"({"push": {"format": "topk", "ratio": 0.05},
                                        "pull": {"format": "fp16"}, "clip": {"global_norm": 5}})");
  Scenario s = parse_scenario(doc);
  EXPECT_EQ(s.compression.push.format, ValueFormat::kTopK);
  EXPECT_DOUBLE_EQ(s.compression.push.topk_ratio, 0.05);
  EXPECT_TRUE(s.compression.push.error_feedback);  // the default for topk and onebit
  EXPECT_EQ(s.compression.pull.format, ValueFormat::kFp16);
  EXPECT_EQ(s.compression.clip, CompressionConfig::Clip::kGlobalNorm);
  EXPECT_DOUBLE_EQ(s.compression.clip_threshold, 5.0);
  doc["compression"] = json::parse(R"({"push": {"format": "int8"}, "clip": {"value": 0.5}})");
  s = parse_scenario(doc);
  EXPECT_FALSE(s.compression.push.error_feedback);
  EXPECT_EQ(s.compression.clip, CompressionConfig::Clip::kValue);
  doc["compression"] = json::parse(R"({"push": {"format": "onebit", "error_feedback": false}})");
  EXPECT_FALSE(parse_scenario(doc).compression.push.error_feedback);
}

TEST(ScenarioCompression, RefusalsNameTheirPointer) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"push": {"format": "zip"}})", "/compression/push/format"},
      {R"({"push": {"format": "int8", "ratio": 0.1}})", "/compression/push/ratio"},
      {R"({"push": {"format": "topk", "ratio": 0}})", "/compression/push/ratio"},
      {R"({"push": {"format": "topk", "ratio": 1.5}})", "/compression/push/ratio"},
      {R"({"push": {"format": "none", "error_feedback": true}})", "/compression/push/error_feedback"},
      {R"({"push": {"format": "topk", "error_feedback": "yes"}})", "/compression/push/error_feedback"},
      {R"({"pull": {"format": "topk"}})", "/compression/pull/format"},
      {R"({"pull": {"format": "onebit"}})", "/compression/pull/format"},
      {R"({"pull": {"format": "int8", "error_feedback": true}})", "/compression/pull/error_feedback"},
      {R"({"clip": {}})", "/compression/clip"},
      {R"({"clip": {"global_norm": 1, "value": 1}})", "/compression/clip"},
      {R"({"clip": {"value": -1}})", "/compression/clip/value"},
      {R"({"push": {"format": "fp16"}, "level": 3})", "/compression/level"},
  };
  for (const auto& [section, pointer] : cases) {
    json doc = base();
    doc["compression"] = json::parse(section);
    EXPECT_EQ(error_pointer(doc), pointer) << section << ": " << error_message(doc);
  }
}

TEST(ScenarioCompression, PullOfSignsSaysWhy) {
  json doc = base();
  doc["compression"] = json::parse(R"({"pull": {"format": "topk"}})");
  EXPECT_NE(error_message(doc).find("pulls take"), std::string::npos) << error_message(doc);
}

TEST(ScenarioCompression, TheSyntheticModelIsRefused) {
  json doc = base();
  doc.erase("data");
  doc["model"] = json::parse(R"({"type": "synthetic", "parameters": 100, "flops_per_iteration": 1,
                                  "bytes_per_iteration": 1})");
  doc["training"].erase("batch_size");
  doc["training"].erase("learning_rate");
  ASSERT_EQ(error_pointer(doc), "<valid>") << error_message(doc);
  doc["compression"] = json::parse(R"({"push": {"format": "fp16"}})");
  EXPECT_EQ(error_pointer(doc), "/compression");
}

TEST(ScenarioCompression, AVariantOverridesTheSection) {
  json doc = base();
  doc.erase("consistency");
  doc["compression"] = json::parse(R"({"push": {"format": "int8"}})");
  doc["variants"] = json::parse(R"([{"name": "int8"},
      {"name": "topk", "set": {"/compression/push": {"format": "topk", "ratio": 0.01}}},
      {"name": "plain", "set": {"/compression": null}},
      {"name": "bad", "set": {"/compression/pull": {"format": "topk"}}}])");
  EXPECT_EQ(error_pointer(doc), "/variants/3/set/~1compression~1pull/format");
  doc["variants"].erase(3);
  const Scenario s = parse_scenario(doc);
  EXPECT_EQ(scenario_for_variant(s, 0).compression.push.format, ValueFormat::kInt8);
  EXPECT_EQ(scenario_for_variant(s, 1).compression.push.format, ValueFormat::kTopK);
  EXPECT_EQ(scenario_for_variant(s, 2).compression.push.format, ValueFormat::kFloat32);
}

}  // namespace
}  // namespace pstwin
