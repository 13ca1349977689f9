// A figure's start found with the fact pattern that matches as its start pattern
// does must change nothing: the same signature, and the same facts read from that
// match as from matching every fact pattern again.
#include "core/recognize/figure_reader.h"

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/input/line_cleaner.h"
#include "core/rules/prefilter.h"
#include "core/rules/rule_data.h"
#include "oomlens/rules.h"

namespace oomlens {
namespace {

std::string Described(const FigureFacts& facts) {
  std::string out;
  for (const auto& [info, value] : facts.facts)
    out += info->name + "=" + value.text + "/" + std::to_string(value.integer) + "/" +
           std::to_string(value.tolerance) + " ";
  for (const auto& [info, value] : facts.identities) out += info->name + ":" + value + " ";
  for (const auto& warning : facts.warnings) out += "!" + warning + " ";
  return out;
}

class FigureReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<Problem> problems;
    ASSERT_TRUE(rules_.LoadBuiltin(&problems));
    const RuleData& data = RuleDataOf(rules_);
    reader_ = std::make_unique<FigureReader>(data, std::make_shared<const Prefilter>(data.literals));
  }
  RuleSet rules_;
  std::unique_ptr<FigureReader> reader_;
};

TEST_F(FigureReaderTest, AStartMatchedByAFactPatternReadsTheSameFactsAsMatchingAgain) {
  std::unique_ptr<RuleData> whole = BuiltinRulesWhole();  // with the samples
  ASSERT_TRUE(whole);
  FigureReader& reader = *reader_;
  LineCleaner cleaner;
  int figures = 0, from_start = 0;
  for (const Signature& sig : whole->signatures) {
    if (!FigureReader::IsFigure(sig)) continue;
    for (const Sample& sample : sig.samples) {
      if (!sample.json->contains("text")) continue;
      std::string text = sample.json->at("text").get<std::string>();
      std::string message(cleaner.Clean(text).message);
      StartMatch start;
      const Signature* plain = reader.FindStart(message);
      const Signature* found = reader.FindStart(message, &start);
      ASSERT_EQ(plain, found) << sample.where;
      if (!found || !FigureReader::IsFigure(*found)) {
        EXPECT_EQ(start.fact, -1) << sample.where;
        continue;
      }
      ++figures;
      from_start += start.fact >= 0;
      FigureFacts again, reused;
      FigureReader::ReadFacts(*found, message, &again);
      FigureReader::ReadFacts(*found, message, &reused, &start);
      EXPECT_EQ(Described(reused), Described(again)) << sample.where;
      EXPECT_TRUE(start.fact < 0 || !again.facts.empty() || !again.identities.empty()) << sample.where;
    }
  }
  EXPECT_GE(figures, 20);
  EXPECT_GE(from_start, 2) << "figures whose start pattern is a fact pattern without its captures";
}

// A match made on other text is not read: the facts come from matching again.
TEST_F(FigureReaderTest, AStartMatchOfAnotherTextIsNotRead) {
  FigureReader& reader = *reader_;
  std::string first = "Memstats: step 1: Using (GB) 3.10 / 30.75 (11.0%) on TPU_1(process=0,(1,0,0,0))";
  std::string second = "Memstats: step 2: Using (GB) 7.25 / 30.75 (23.6%) on TPU_2(process=0,(1,0,0,0))";
  StartMatch start;
  const Signature* sig = reader.FindStart(first, &start);
  ASSERT_TRUE(sig);
  ASSERT_GE(start.fact, 0);
  FigureFacts facts;
  FigureReader::ReadFacts(*sig, second, &facts, &start);
  const FactValue* used = nullptr;
  for (const auto& [info, value] : facts.facts)
    if (info->name == "sample_used_bytes") used = &value;
  ASSERT_TRUE(used);
  EXPECT_EQ(used->text, "7.25G");
}

}  // namespace
}  // namespace oomlens
