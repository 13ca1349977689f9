// SimplePattern must give RE2's answer whenever it takes a pattern: checked on
// random patterns of its subset (and just outside it) against RE2 itself, and on
// every builtin signature pattern it takes, over the rule samples.
#include "core/rules/simple_pattern.h"

#include <gtest/gtest.h>
#include <re2/re2.h>

#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/rules/rule_data.h"
#include "oomlens/rules.h"

namespace oomlens {
namespace {

// Compares one search from pos; returns false (with a message) on a difference.
::testing::AssertionResult SameAsRe2(const SimplePattern& simple, const RE2& re, const std::string& text,
                                     size_t pos) {
  int n = re.NumberOfCapturingGroups() + 1;
  std::vector<re2::StringPiece> expected(static_cast<size_t>(n));
  bool found = re.Match(text, pos, text.size(), RE2::UNANCHORED, expected.data(), n);
  std::vector<std::string_view> got(static_cast<size_t>(n));
  SimplePattern::Result result = simple.Match(text, pos, got.data(), n);
  if (result == SimplePattern::Result::kGaveUp) return ::testing::AssertionSuccess();  // RE2 answers then
  if (found != (result == SimplePattern::Result::kMatch))
    return ::testing::AssertionFailure() << re.pattern() << " on '" << text << "' from " << pos << ": RE2 "
                                         << (found ? "matches" : "does not match");
  for (int g = 0; found && g < n; ++g) {
    size_t i = static_cast<size_t>(g);
    bool same = expected[i].data() == got[i].data() && expected[i].size() == got[i].size();
    if (!same && !(expected[i].empty() && got[i].empty() && expected[i].data() == nullptr))
      return ::testing::AssertionFailure() << re.pattern() << " on '" << text << "' group " << g << ": RE2 '"
                                           << std::string(expected[i].data(), expected[i].size()) << "' at "
                                           << (expected[i].data() - text.data()) << ", here '" << got[i]
                                           << "' at " << (got[i].data() - text.data());
  }
  return ::testing::AssertionSuccess();
}

std::string RandomPattern(std::mt19937* rng) {
  static const std::vector<std::string> atoms = {"a",     "b",      ":",   " ",         "\\(", "\\.",
                                                 "[ab]",  "[^a]",   "\\d", "\\w",       "\\s", ".",
                                                 "[a-c]", "[\\d.]", "x",   "[^\\s\\]]", "\\n"};
  static const std::vector<std::string> quantifiers = {"",  "",    "",      "?",    "*",
                                                       "+", "{2}", "{1,3}", "{2,}", "+?"};
  std::string pattern;
  int items = 1 + static_cast<int>((*rng)() % 6);
  bool in_group = false;
  for (int k = 0; k < items; ++k) {
    if (!in_group && (*rng)() % 4 == 0) {
      pattern += (*rng)() % 3 == 0 ? "(?:" : (*rng)() % 2 ? "(" : "(?P<g" + std::to_string(k) + ">";
      in_group = true;
    }
    pattern += atoms[(*rng)() % atoms.size()] + quantifiers[(*rng)() % quantifiers.size()];
    if (in_group && (*rng)() % 2 == 0) {
      pattern += ")";
      in_group = false;
    }
  }
  if (in_group) pattern += ")";
  if ((*rng)() % 20 == 0) pattern += "|a";  // outside the subset: must be refused
  return pattern;
}

std::string RandomText(std::mt19937* rng) {
  static const std::string alphabet = "aabbx: (.)12]\n\t";
  std::string text;
  for (size_t n = (*rng)() % 24; n > 0; --n) text += alphabet[(*rng)() % alphabet.size()];
  return text;
}

TEST(SimplePattern, GivesRe2sAnswerOnRandomPatternsItTakes) {
  std::mt19937 rng(17);
  int taken = 0, compared = 0;
  for (int round = 0; round < 4000; ++round) {
    std::string pattern = RandomPattern(&rng);
    RE2 re(pattern, RE2::Latin1);
    if (!re.ok()) continue;
    auto simple = SimplePattern::Compile(pattern);
    if (!simple) continue;
    ++taken;
    ASSERT_EQ(simple->groups(), re.NumberOfCapturingGroups()) << pattern;
    for (int t = 0; t < 40; ++t) {
      std::string text = RandomText(&rng);
      ASSERT_TRUE(SameAsRe2(*simple, re, text, text.empty() ? 0 : rng() % (text.size() + 1)));
      ++compared;
    }
  }
  EXPECT_GT(taken, 1000);  // the subset is not trivially small
  EXPECT_GT(compared, 40000);
}

TEST(SimplePattern, RefusesWhatItCannotAnswerExactly) {
  for (const char* pattern : {"a|b", "^a", "a$", "\\bword", "a+?", "(?i)oom", "(ab)+", "(a(b))", "\\w+_x",
                              "a?a", "[[:alpha:]]", "\\x41", "[]a]", "a{,3}", ""}) {
    EXPECT_EQ(SimplePattern::Compile(pattern), nullptr) << pattern;
  }
  EXPECT_NE(SimplePattern::Compile(R"(Using \(GB\) (?P<u>[\d.]+) / (?P<l>[\d.]+))"), nullptr);
}

TEST(SimplePattern, GivesUpToRe2OnCostlyText) {
  auto simple = SimplePattern::Compile("a+b");
  ASSERT_NE(simple, nullptr);
  std::string text(100000, 'a');  // every start reads to the end
  std::string_view sub[1];
  EXPECT_EQ(simple->Match(text, 0, sub, 1), SimplePattern::Result::kGaveUp);
  std::string ended = text + "b";
  EXPECT_EQ(simple->Match(ended, ended.size() - 3, sub, 1), SimplePattern::Result::kMatch);
  EXPECT_EQ(sub[0], "aab");
}

TEST(SimplePattern, BuiltinPatternsItTakesAgreeWithRe2OnTheSamples) {
  RuleSet rules;
  std::vector<Problem> problems;
  ASSERT_TRUE(rules.LoadBuiltin(&problems));
  std::vector<std::string> texts;
  for (const auto& sig : RuleDataOf(rules).signatures)
    for (const auto& sample : sig.samples) texts.push_back(sample.json->value("text", ""));
  std::mt19937 rng(23);
  int taken = 0, patterns = 0;
  std::set<const RE2*> seen;  // a shared pattern (the general reader's figures) counts once
  auto check = [&](const RE2& re, const SimplePattern* simple) {
    if (!seen.insert(&re).second) return;
    ++patterns;
    if (!simple) return;
    ++taken;
    for (const auto& text : texts) {
      ASSERT_TRUE(SameAsRe2(*simple, re, text, 0));
      std::string cut = text.substr(0, rng() % (text.size() + 1));  // truncated messages
      ASSERT_TRUE(SameAsRe2(*simple, re, cut, 0));
    }
  };
  for (const auto& sig : RuleDataOf(rules).signatures) {
    if (sig.start) check(*sig.start, sig.start_simple.get());
    for (const auto& pattern : sig.facts) check(*pattern.re, pattern.simple.get());
  }
  EXPECT_GT(taken, patterns / 4) << taken << " of " << patterns;  // the fast path is common
}

}  // namespace
}  // namespace oomlens
