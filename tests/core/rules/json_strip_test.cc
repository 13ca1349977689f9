// Members left out of a JSON text before it is parsed (the built-in rules'
// samples): what is left parses to the document without them.
#include "core/rules/json_strip.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "core/rules/embedded_rules.h"

namespace oomlens {
namespace {

using json = nlohmann::json;

// The document with key erased from every object in its top object's lists.
json Erased(json doc, const std::string& key) {
  for (auto& [name, list] : doc.items())
    if (list.is_array())
      for (auto& element : list)
        if (element.is_object()) element.erase(key);
  return doc;
}

TEST(WithoutMembers, LeavesOutTheMemberWithAComma) {
  EXPECT_EQ(WithoutMembers(R"({"s": [{"id": "a", "samples": [1, {"x": "]"}], "k": 2}]})", 3, "samples"),
            R"({"s": [{"id": "a", "k": 2}]})");
  EXPECT_EQ(WithoutMembers(R"({"s": [{"samples": [], "k": 2}]})", 3, "samples"), R"({"s": [{"k": 2}]})");
  EXPECT_EQ(WithoutMembers(R"({"s": [{"k": 2,
      "samples": {"a": "}"}
    }]})",
                           3, "samples"),
            R"({"s": [{"k": 2
    }]})");
  EXPECT_EQ(WithoutMembers(R"({"s": [{"samples": 3}]})", 3, "samples"), R"({"s": [{}]})");
}

TEST(WithoutMembers, ReadsEscapedQuotesAndBackslashesInStrings) {
  EXPECT_EQ(WithoutMembers(R"({"s": [{"a": "ends \\", "samples": [1], "b": "q\"\\\" \\\\"}]})", 3, "samples"),
            R"({"s": [{"a": "ends \\", "b": "q\"\\\" \\\\"}]})");
  EXPECT_EQ(WithoutMembers(R"({"s": [{"a": "\", \"samples\": [1]"}]})", 3, "samples"),
            R"({"s": [{"a": "\", \"samples\": [1]"}]})");  // an escaped quote does not end it
}

TEST(WithoutMembers, KeepsTheSameNameAsAValueElsewhereOrInAString) {
  const std::string text =
      R"({"samples": [1], "s": [{"id": "samples", "t": "\"samples\": [", "d": {"samples": 1}}]})";
  EXPECT_EQ(WithoutMembers(text, 3, "samples"), text);
  EXPECT_EQ(WithoutMembers(text, 1, "samples"),
            R"({"s": [{"id": "samples", "t": "\"samples\": [", "d": {"samples": 1}}]})");
}

TEST(WithoutMembers, EveryBuiltinFileParsesToItselfWithoutSamples) {
  size_t left_out = 0;
  for (const auto& file : EmbeddedRuleFiles()) {
    std::string without = WithoutMembers(file.text, 3, "samples");
    json doc = json::parse(file.text);
    EXPECT_EQ(json::parse(without), Erased(doc, "samples")) << file.name;
    left_out += file.text.size() - without.size();
  }
  EXPECT_GT(left_out, 50000u);  // the samples are there to leave out
}

TEST(WithoutMembers, TextThatIsNotJsonComesBackForTheParserToReport) {
  for (const std::string text :
       {"", "{", R"({"s": [{"samples": )", R"({"s": [{"samples": "unclosed)", "]]}}"}) {
    std::string without = WithoutMembers(text, 3, "samples");
    EXPECT_LE(without.size(), text.size()) << text;
    EXPECT_TRUE(json::parse(without, nullptr, false).is_discarded()) << text;
  }
}

}  // namespace
}  // namespace oomlens
