// The locator that gives rule errors their file:line:col: a shallow one (the
// built-in rules) answers every pointer as a whole one does, completing itself for
// a deeper one; only a whole one looks for repeated keys.
#include "core/rules/json_locator.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace oomlens {
namespace {

const char kDoc[] = R"({
  "signatures": [
    {"id": "a", "facts": ["x", "y"],
     "samples": [{"text": "t \"quoted\" ]}", "expect": {"requested_bytes": 5, "deep": {"deeper": [1, 2]}}}]},
    {"id": "b", "start": "s", "id": "again"}
  ],
  "causes": [{"cause": "oversize", "when": "true"}]
})";

TEST(JsonLocator, ShallowAnswersEveryPointerAsWhole) {
  const char* const kPointers[] = {"",
                                   "/signatures",
                                   "/signatures/0",
                                   "/signatures/0/facts/1",
                                   "/signatures/0/samples/0",
                                   "/signatures/0/samples/0/expect/requested_bytes",
                                   "/signatures/0/samples/0/expect/deep/deeper/1",
                                   "/signatures/1/start",
                                   "/signatures/1/missing",
                                   "/causes/0/when"};
  JsonLocator whole(kDoc);
  for (const char* pointer : kPointers) {
    JsonLocator shallow(kDoc, /*shallow=*/true);  // fresh: the deep pointer is its first question
    EXPECT_EQ(shallow.Where(pointer), whole.Where(pointer)) << pointer;
  }
  EXPECT_EQ(whole.Where("/signatures/0/samples/0/expect/deep/deeper/1"), "4:102");
  EXPECT_EQ(whole.Where("/signatures/1/missing"), whole.Where("/signatures/1"));
}

TEST(JsonLocator, OnlyAWholeLocatorFindsRepeatedKeys) {
  JsonLocator whole(kDoc), shallow(kDoc, /*shallow=*/true);
  ASSERT_EQ(whole.duplicates().size(), 1u);
  EXPECT_EQ(whole.duplicates()[0].first, "/signatures/1/id");
  EXPECT_EQ(whole.WhereOffset(whole.duplicates()[0].second), "5:31");
  EXPECT_TRUE(shallow.duplicates().empty());
}

// A built-in rule file: the shallow locator agrees with a whole one on the
// signatures, samples and patterns the loader asks about.
TEST(JsonLocator, ShallowAgreesOnTheBuiltinRules) {
  std::ifstream in(std::string(OOMLENS_SOURCE_DIR) + "/rules/signatures/gpu.json");
  std::stringstream text;
  text << in.rdbuf();
  std::string doc = text.str();
  ASSERT_GT(doc.size(), 1000u);
  JsonLocator whole(doc), shallow(doc, /*shallow=*/true);
  for (int s = 0; s < 40; ++s)
    for (const std::string tail : {"", "/samples/0", "/facts/1", "/start"}) {
      std::string pointer = "/signatures/" + std::to_string(s) + tail;
      EXPECT_EQ(shallow.Where(pointer), whole.Where(pointer)) << pointer;
    }
}

}  // namespace
}  // namespace oomlens
