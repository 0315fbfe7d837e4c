#include "runtime/scenario/compression_section.h"

#include "runtime/errors.h"
#include "runtime/scenario/json_fields.h"

namespace pstwin {

using namespace scenario_json;

namespace {

ValueFormat format_named(const std::string& name) {
  for (std::uint8_t f = 0; f <= kMaxValueFormat; ++f)
    if (value_format_name(static_cast<ValueFormat>(f)) == name) return static_cast<ValueFormat>(f);
  throw std::logic_error("format_named: " + name);  // read_choice admitted only known names
}

CompressionDirection parse_push(const json& v, const std::string& ptr) {
  const Object o(v, ptr, {"format", "ratio", "error_feedback"});
  CompressionDirection d;
  d.format = format_named(read_choice(o.at("format"), o.ptr("format"), {"none", "fp16", "bf16", "int8", "onebit", "topk"}));
  if (d.format == ValueFormat::kTopK) {
    if (o.has("ratio"))
      d.topk_ratio = read_number(o.at("ratio"), o.ptr("ratio"), {.min = 0.0, .max = 1.0, .min_open = true});
  } else {
    o.forbid("ratio", "\"ratio\" is for format \"topk\" only");
  }
  d.error_feedback = d.format == ValueFormat::kOneBit || d.format == ValueFormat::kTopK;
  if (o.has("error_feedback")) {
    if (!o.at("error_feedback").is_boolean())
      throw ScenarioError(o.ptr("error_feedback"), "expected true or false, got " + describe(o.at("error_feedback")));
    d.error_feedback = o.at("error_feedback").get<bool>();
    if (d.error_feedback && d.format == ValueFormat::kFloat32)
      throw ScenarioError(o.ptr("error_feedback"), "format \"none\" loses nothing, so there is nothing to feed back");
  }
  return d;
}

CompressionDirection parse_pull(const json& v, const std::string& ptr) {
  const Object o(v, ptr, {"format", "ratio", "error_feedback"});
  const std::string name = read_choice(o.at("format"), o.ptr("format"), {"none", "fp16", "bf16", "int8", "onebit", "topk"});
  if (name == "onebit" || name == "topk")
    throw ScenarioError(o.ptr("format"), "\"" + name + "\" of parameters is not a usable parameter vector (a worker "
                        "would train on signs or on mostly zeros); pulls take \"none\", \"fp16\", \"bf16\" or \"int8\"");
  o.forbid("ratio", "\"ratio\" is for push format \"topk\" only");
  o.forbid("error_feedback", "pulls carry parameters, which the server keeps exactly: no error feedback");
  return CompressionDirection{.format = format_named(name)};
}

}  // namespace

CompressionConfig parse_compression(const json& v, const std::string& ptr, bool synthetic) {
  const Object o(v, ptr, {"push", "pull", "clip"});
  if (synthetic)
    throw ScenarioError(ptr, "the synthetic model sends sizes, not values: there is nothing to compress");
  CompressionConfig c;
  if (o.has("push")) c.push = parse_push(o.at("push"), o.ptr("push"));
  if (o.has("pull")) c.pull = parse_pull(o.at("pull"), o.ptr("pull"));
  if (o.has("clip")) {
    const Object clip(o.at("clip"), o.ptr("clip"), {"global_norm", "value"});
    if (clip.has("global_norm") == clip.has("value"))
      throw ScenarioError(clip.ptr(), "give exactly one of \"global_norm\" (clip by the gradient's L2 norm) and "
                                      "\"value\" (clip each element)");
    const char* key = clip.has("global_norm") ? "global_norm" : "value";
    c.clip = clip.has("global_norm") ? CompressionConfig::Clip::kGlobalNorm : CompressionConfig::Clip::kValue;
    c.clip_threshold = read_float32(clip.at(key), clip.ptr(key), {.min = 0.0, .min_open = true});
  }
  return c;
}

}  // namespace pstwin
