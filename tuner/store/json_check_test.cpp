// json_valid against nlohmann::json::accept (what reads the JSON columns back): the same verdict
// on hand-written edge cases, on real cache entries, and on many random mutations of them.
#include "store/json_check.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

namespace tune::store {
namespace {

// An extra column as a replay stores it, and the parameters of a real configuration.
const std::string kExtra = R"({"framework_time":248.33483365364373,"timestamp":"2023-06-26 13:07:07.553168+00:00",)"
                           R"("kernel_tuner":{"key":"1,32,1,1,1,0,0,0","int":["strategy_time"]}})";
const std::string kParams =
    R"({"block_size_x":1,"block_size_y":32,"tile_stride_x":0,"alg":"alg_1","f":2.45,"b":true,"n":null})";

void expect_same(const std::string& text) {
  EXPECT_EQ(json_valid(text), nlohmann::json::accept(text)) << "\"" << text << "\"";
}

TEST(JsonCheck, AgreesWithNlohmannOnEdgeCases) {
  const std::vector<std::string> cases = {
      "",
      " ",
      "{}",
      "[]",
      "{ }",
      "[ ]",
      " {} ",
      "\t\r\n[1]\n",
      "0",
      "-0",
      "1",
      "-1",
      "01",
      "-01",
      "1.",
      ".5",
      "1.5",
      "1e5",
      "1E+5",
      "1e-5",
      "1e",
      "1e+",
      "-",
      "--1",
      "+1",
      "1.5e308",
      "1.7976931348623157e308",
      "1.7976931348623159e308",
      "1.8e308",
      "-1.8e308",
      "1e309",
      "1e999",
      "1e-400",
      "0e999",
      "0.0e999",
      "0.001e311",
      "0.001e310",
      "123456789012345678901234567890",
      std::string(310, '9'),
      std::string(308, '9'),
      "true",
      "false",
      "null",
      "tru",
      "nul",
      "True",
      "NaN",
      "Infinity",
      "\"\"",
      "\"a\"",
      "\"\\\"\"",
      "\"\\u0041\"",
      "\"\\u00e9\"",
      "\"\\ud83d\\ude00\"",
      "\"\\ud83d\"",
      "\"\\ude00\"",
      "\"\\ud83d\\u0041\"",
      "\"\\u12\"",
      "\"\\uZZZZ\"",
      "\"\\x41\"",
      "\"\\/\"",
      "\"\\b\\f\\n\\r\\t\"",
      "\"a\nb\"",
      "\"a\tb\"",
      "\"\x7f\"",
      "\"\xc3\xa9\"",
      "\"\xc0\xaf\"",
      "\"\xc3\"",
      "\"\xe2\x82\xac\"",
      "\"\xed\xa0\x80\"",
      "\"\xef\xbf\xbf\"",
      "\"\xf0\x9f\x98\x80\"",
      "\"\xf4\x90\x80\x80\"",
      "\"\xf5\x80\x80\x80\"",
      "\"\xff\"",
      "\"abc",
      "{\"a\":1}",
      "{\"a\":1,}",
      "{\"a\" 1}",
      "{a:1}",
      "{\"a\":}",
      "{,}",
      "{\"a\":1 \"b\":2}",
      "[1,2]",
      "[1,]",
      "[,1]",
      "[1 2]",
      "[[[]]]",
      "[[[]]",
      "{\"a\":[1,{\"b\":null}]}",
      "[1]x",
      "{}{}",
      "1 2",
      std::string(500, '[') + std::string(500, ']'),
      kExtra,
      kParams,
      std::string("\"a\0b\"", 5),
  };
  for (const auto& c : cases) expect_same(c);
}

TEST(JsonCheck, ObjectOnly) {
  EXPECT_TRUE(json_valid(kExtra, true));
  EXPECT_TRUE(json_valid(" {} ", true));
  EXPECT_FALSE(json_valid("[1]", true));
  EXPECT_FALSE(json_valid("1", true));
  EXPECT_TRUE(json_valid("[1]", false));
}

TEST(JsonCheck, DepthIsLimited) {
  const std::string deep = std::string(kJsonMaxDepth, '[') + std::string(kJsonMaxDepth, ']');
  EXPECT_TRUE(json_valid(deep));
  EXPECT_FALSE(json_valid("[" + deep + "]"));  // nlohmann has no limit; SQLite's is the same
}

// Random edits (delete, duplicate, replace with a JSON-significant or arbitrary byte) of real
// documents: both must agree on every one.
TEST(JsonCheck, AgreesWithNlohmannOnMutations) {
  const std::string alphabet = "{}[]\",:\\/-+.eE0123456789tfnulrsaxbu \t\n\x01\x7f\xc3\xa9\xed\xf0\xff";
  std::mt19937 rng(2026);
  int valid = 0, invalid = 0;
  for (const std::string& base : {kExtra, kParams, std::string("[73.68499,73.57952,1e-3,-0.5,12E+2]"),
                                  std::string(R"({"s":"\u00e9\ud83d\ude00\n","a":[true,false,null]})")}) {
    for (int k = 0; k < 4000; ++k) {
      std::string t = base;
      const int edits = 1 + static_cast<int>(rng() % 3);
      for (int e = 0; e < edits && !t.empty(); ++e) {
        const std::size_t at = rng() % t.size();
        switch (rng() % 3) {
          case 0:
            t.erase(at, 1);
            break;
          case 1:
            t.insert(at, 1, t[at]);
            break;
          default:
            t[at] = alphabet[rng() % alphabet.size()];
            break;
        }
      }
      const bool ours = json_valid(t);
      ASSERT_EQ(ours, nlohmann::json::accept(t)) << "\"" << t << "\"";
      ++(ours ? valid : invalid);
    }
  }
  EXPECT_GT(valid, 1000);  // the mutations exercise both verdicts
  EXPECT_GT(invalid, 1000);
}

}  // namespace
}  // namespace tune::store
