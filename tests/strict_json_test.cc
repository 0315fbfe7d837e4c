// parse_strict_json (runtime/scenario/strict_json.h): a key given twice and a number beyond a
// double are errors at their JSON pointer; everything else parses as nlohmann would.
#include "runtime/scenario/strict_json.h"

#include <gtest/gtest.h>

#include <string>

#include "runtime/errors.h"

namespace pstwin {
namespace {

/// The pointer of the ScenarioError parse_strict_json throws, or "<parsed>".
std::string error_pointer(const std::string& text, const std::string& base = "") {
  try {
    parse_strict_json(text, base);
  } catch (const ScenarioError& e) {
    return e.pointer();
  }
  return "<parsed>";
}

std::string error_message(const std::string& text, const std::string& base = "") {
  try {
    parse_strict_json(text, base);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "<parsed>";
}

// A fresh user's file of 200,000 nested brackets under "seed" crashed validate (exit 139): the
// parse succeeded, copying the value overflowed the stack.
TEST(StrictJson, DeepNestingIsRefusedAtItsPointer) {
  const std::string deep = "{\"name\":\"x\",\"seed\":" + std::string(200000, '[') + std::string(200000, ']') + "}";
  EXPECT_EQ(error_pointer(deep), "/seed" + [] {
    std::string p;
    for (std::size_t i = 1; i < kMaxJsonDepth; ++i) p += "/0";
    return p;
  }());
  EXPECT_NE(error_message(deep).find("nested more than 64 levels deep"), std::string::npos);
  const std::string ok = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  EXPECT_EQ(error_pointer(ok), "<parsed>");
  const std::string one_more = "[" + ok + "]";
  EXPECT_NE(error_pointer(one_more), "<parsed>");
}

TEST(StrictJson, ValidTextParsesAsNlohmannDoes) {
  const std::string text = R"({"a": [1, {"b": 2.5}, [true, null]], "c": {"a": "x"}, "d": -7})";
  EXPECT_EQ(parse_strict_json(text), nlohmann::json::parse(text));
  EXPECT_EQ(parse_strict_json("1.5e308"), nlohmann::json(1.5e308));
}

TEST(StrictJson, DuplicateKeyNamesThePointerOfTheSecondOccurrence) {
  EXPECT_EQ(error_pointer(R"({"cluster": {"workers": 2, "workers": 8, "servers": 1}})"), "/cluster/workers");
  EXPECT_EQ(error_message(R"({"cluster": {"workers": 2, "workers": 8}})"),
            "/cluster/workers: key \"workers\" is given twice in /cluster; JSON keys must be unique "
            "(which value was meant?)");
  EXPECT_EQ(error_pointer(R"({"seed": 1, "seed": 1})"), "/seed");
  EXPECT_EQ(error_pointer(R"({"x": [{"a": 1}, {"b": 1, "b": 2}]})"), "/x/1/b");
  EXPECT_EQ(error_pointer(R"({"a/b~": 1, "a/b~": 2})"), "/a~1b~0");  // RFC 6901 escapes
}

TEST(StrictJson, TheSameKeyInDifferentObjectsIsFine) {
  EXPECT_EQ(error_pointer(R"({"w": {"link": 1}, "s": {"link": 2}, "l": [{"link": 3}, {"link": 4}]})"), "<parsed>");
}

TEST(StrictJson, NumberBeyondADoubleNamesItsPointer) {
  EXPECT_EQ(error_pointer(R"({"training": {"iterations": 5, "learning_rate": 1e400}})"), "/training/learning_rate");
  EXPECT_EQ(error_message(R"({"seed": 1e400})"),
            "/seed: number 1e400 is outside the range of a double (magnitude at most 1.7976931348623157e308)");
  EXPECT_EQ(error_pointer(R"({"x": [{"a": 1}, [1, 2], 3, -1e400]})"), "/x/3");  // slots count whole values
  EXPECT_EQ(error_pointer("1e400"), "");
}

TEST(StrictJson, BasePointerPrefixesErrorsOfAnInsertedValue) {
  EXPECT_EQ(error_pointer("1e400", "/training/learning_rate"), "/training/learning_rate");
  EXPECT_EQ(error_pointer(R"({"workers": 2, "workers": 3})", "/cluster"), "/cluster/workers");
}

TEST(StrictJson, SyntaxErrorsAreLeftToTheCaller) {
  EXPECT_THROW(parse_strict_json("{\"a\": }"), nlohmann::json::parse_error);
  EXPECT_THROW(parse_strict_json("bsp"), nlohmann::json::parse_error);
}

}  // namespace
}  // namespace pstwin
