// Fact patterns: the anchored fast path (a literal prefix) finds exactly what an
// unanchored search finds.
#include "core/rules/signature_patterns.h"

#include <gtest/gtest.h>
#include <re2/re2.h>

#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "core/rules/rule_data.h"
#include "oomlens/rules.h"

namespace oomlens {
namespace {

TEST(LiteralPrefix, StopsAtTheFirstCharacterThatIsNotCertain) {
  EXPECT_EQ(LiteralPrefix(R"(Using \(GB\) (?P<x>[\d.]+))"), "Using (GB) ");
  EXPECT_EQ(LiteralPrefix(R"(\) on (?P<k>\w+))"), ") on ");
  EXPECT_EQ(LiteralPrefix("abc+d"), "ab");  // c may repeat: only "ab" is sure
  EXPECT_EQ(LiteralPrefix("abc?d"), "ab");
  EXPECT_EQ(LiteralPrefix("ab{2}"), "a");
  EXPECT_EQ(LiteralPrefix(R"(\d+ bytes)"), "");  // a class first
  EXPECT_EQ(LiteralPrefix("(?i)oom"), "");       // a flag
  EXPECT_EQ(LiteralPrefix("^oom"), "");
  EXPECT_EQ(LiteralPrefix("out of memory|OOM"), "");  // an alternation at the top
  EXPECT_EQ(LiteralPrefix("(?:out of memory)|OOM"), "");
  EXPECT_EQ(LiteralPrefix(R"(There are (?P<free>\d+(?:MB|GB)) free)"), "There are ");  // inside a group
  EXPECT_EQ(LiteralPrefix(R"(a[)(]b|c)"), "");     // a class's parentheses do not nest
  EXPECT_EQ(LiteralPrefix(R"(a[]|]b)"), "a");      // a class's ']' first is itself, and its '|'
  EXPECT_EQ(LiteralPrefix(R"(x\|y z)"), "x|y z");  // an escaped '|' is a literal
  EXPECT_EQ(LiteralPrefix(R"(ab\Qc|d\E)"), "");    // quoted text is not read here
  EXPECT_EQ(LiteralPrefix(R"(free\.)"), "free.");
  EXPECT_EQ(LiteralPrefix(""), "");
}

// The same pattern with and without its prefix must capture the same text.
void ExpectSameCaptures(const FactPattern& with_prefix, const std::string& text, size_t pos) {
  FactPattern plain = with_prefix;
  plain.prefix.clear();
  std::vector<std::string> a, b;
  size_t end_a = 0, end_b = 0;
  bool found_a = MatchFactsFrom(with_prefix, text, pos, &end_a,
                                [&a](const FactGroup&, std::string_view v) { a.emplace_back(v); });
  bool found_b = MatchFactsFrom(plain, text, pos, &end_b,
                                [&b](const FactGroup&, std::string_view v) { b.emplace_back(v); });
  ASSERT_EQ(found_a, found_b) << with_prefix.re->pattern() << " on: " << text;
  if (!found_a) return;
  EXPECT_EQ(end_a, end_b) << with_prefix.re->pattern() << " on: " << text;
  EXPECT_EQ(a, b) << with_prefix.re->pattern() << " on: " << text;
}

TEST(MatchFacts, AnchoredAtThePrefixFindsWhatAnUnanchoredSearchFinds) {
  RuleSet rules;
  std::vector<Problem> problems;
  ASSERT_TRUE(rules.LoadBuiltin(&problems));
  std::vector<const FactPattern*> patterns;
  std::vector<std::string> samples;
  for (const auto& sig : RuleDataOf(rules).signatures) {
    for (const auto& pattern : sig.facts)
      if (!pattern.prefix.empty()) patterns.push_back(&pattern);
    for (const auto& sample : sig.samples) samples.push_back(sample.json->value("text", ""));
  }
  ASSERT_GT(patterns.size(), 20u);  // the fast path is common, not an oddity
  std::mt19937 rng(3);
  for (const FactPattern* pattern : patterns) {
    for (const auto& sample : samples) {
      ExpectSameCaptures(*pattern, sample, 0);
      // the prefix repeated, near misses and a start past the first match
      std::string doubled = pattern->prefix + " " + sample + " " + pattern->prefix + pattern->prefix + sample;
      ExpectSameCaptures(*pattern, doubled, rng() % doubled.size());
    }
  }
}

TEST(MatchFacts, PrefixesEverywhereWithoutAMatch) {
  FactPattern pattern;
  std::string error;
  pattern.re = CompilePattern(R"(a(?P<used_bytes>[^x]*)x)", &error);
  ASSERT_TRUE(static_cast<bool>(pattern.re)) << error;
  pattern.prefix = LiteralPrefix(pattern.re.pattern());
  ASSERT_EQ(pattern.prefix, "a");
  std::string text(1 << 16, 'a');  // every byte starts an attempt that reads to the end
  size_t end = 0;
  EXPECT_FALSE(MatchFactsFrom(pattern, text, 0, &end, [](const FactGroup&, std::string_view) {}));
  text += "x";
  EXPECT_TRUE(MatchFactsFrom(pattern, text, 0, &end, [](const FactGroup&, std::string_view) {}));
  EXPECT_EQ(end, text.size());
}

// The groups a pattern's text holds, read without RE2, are RE2's own: escapes,
// \Q...\E, classes (with "]" first, "[:alpha:]"), flags and non-capturing groups.
TEST(ReadCapturingGroups, NumbersGroupsAsRe2Does) {
  const char* const kPatterns[] = {
      R"(a(?P<x>b)(c)(?:d)(?i:e)(?i)f)",
      R"(\((?P<x>\d+)\) \Q(not a group)\E(?P<y>z))",
      R"([(][^)(]*[]()]((?P<size>[[:alpha:](]+))[\]()])",
      R"(\Q(unterminated)",
      R"(((a)|(?P<b>c))(?:(d)))",
      R"(x\\(y))",
  };
  for (const char* pattern : kPatterns) {
    std::map<std::string, int> named;
    int groups = ReadCapturingGroups(pattern, &named);
    RE2 re(pattern);
    ASSERT_TRUE(re.ok()) << pattern << ": " << re.error();
    EXPECT_EQ(groups, re.NumberOfCapturingGroups()) << pattern;
    EXPECT_EQ(named, re.NamedCapturingGroups()) << pattern;
  }
}

// A built-in pattern is compiled by its first match, not by loading the rules; a
// user's rules are compiled (and refused) as they load.
TEST(LazyRegex, TheBuiltinRulesCompileOnFirstUse) {
  std::string error;
  LazyRegex later = CompilePattern("lazily (?P<requested_bytes>{size}) here", &error, false);
  ASSERT_TRUE(static_cast<bool>(later));
  EXPECT_FALSE(later.compiled());
  EXPECT_EQ(later.groups(), 1);
  EXPECT_TRUE(RE2::PartialMatch("it is lazily 2.5G here", *later));
  EXPECT_TRUE(later.compiled());
  EXPECT_FALSE(CompilePattern("broken (", &error));
  EXPECT_NE(error.find("missing )"), std::string::npos) << error;
  LazyRegex broken_later = CompilePattern("broken later (", &error, false);
  EXPECT_FALSE(broken_later.compiled());
  EXPECT_FALSE(broken_later.Compile(&error));
  EXPECT_FALSE(RE2::PartialMatch("broken later (", *broken_later));  // refused, matching nothing
}

}  // namespace
}  // namespace oomlens
