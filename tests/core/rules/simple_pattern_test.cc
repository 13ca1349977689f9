// SimplePattern must give RE2's answer whenever it takes a pattern: checked on
// random patterns of its subset (and just outside it) against RE2 itself, and on
// every builtin signature pattern it takes, over the rule samples.
#include "core/rules/simple_pattern.h"

#include <gtest/gtest.h>
#include <re2/re2.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/rules/pattern_program.h"
#include "core/rules/rule_data.h"
#include "oomlens/rules.h"

namespace oomlens {
namespace {

// Compares one search from pos; returns false (with a message) on a difference.
template <typename Matcher>
::testing::AssertionResult SameAsRe2(const Matcher& simple, const RE2& re, const std::string& text,
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

// Whether it answers itself (a search on "" never costs enough to give up).
bool Takes(const SimplePattern& simple) {
  return simple.Match("", 0, nullptr, 0) != SimplePattern::Result::kGaveUp;
}
bool Takes(const char* pattern) { return Takes(*SimplePattern::Compile(pattern)); }

std::string RandomPattern(std::mt19937* rng) {
  static const std::vector<std::string> atoms = {"a",    "b",         ":",   " ",   "\\(", "\\.",   "[ab]",
                                                 "[^a]", "\\d",       "\\w", "\\s", ".",   "[a-c]", "[\\d.]",
                                                 "x",    "[^\\s\\]]", "\\n", "\\D", "\\W"};
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

// Patterns beyond the flat subset (PatternProgram's): alternation, case folding,
// word boundaries, anchors, lazy quantifiers, nested and quantified groups, and
// Latin-1 letters whose case RE2 folds too.
std::string RandomRichPattern(std::mt19937* rng, int depth = 0) {
  static const std::vector<std::string> atoms = {
      "a",           "b",   "B",   ":",   " ", "\\(",   "\\.",     "[ab]", "[^a]", "\\d",
      "\\w",         "\\s", "\\W", "\\D", ".", "[a-c]", "[^\\s:]", "x",    "\xc9", "\xe9",
      "[\xc0-\xc9]", "\\b", "\\B", "^",   "$", "\\A",   "\\z",     "_"};
  static const std::vector<std::string> quantifiers = {"",    "",      "",     "",   "?",  "*",  "+",
                                                       "{2}", "{0,2}", "{2,}", "*?", "+?", "??", "{1,3}?"};
  static const std::vector<std::string> opens = {"(", "(?:", "(?i:", "(?P<g>"};
  std::string pattern;
  for (int pieces = 1 + static_cast<int>((*rng)() % 4); pieces > 0; --pieces) {
    if (depth < 3 && (*rng)() % 4 == 0) {
      std::string open = opens[(*rng)() % opens.size()];
      if (open == "(?P<g>") open = "(?P<g" + std::to_string((*rng)()) + ">";
      pattern += open + RandomRichPattern(rng, depth + 1);
      for (int more = static_cast<int>((*rng)() % 3); more > 0; --more)
        pattern += "|" + RandomRichPattern(rng, depth + 1);
      pattern += ")";
    } else if ((*rng)() % 30 == 0) {
      pattern += "(?i)";
      continue;
    } else {
      pattern += atoms[(*rng)() % atoms.size()];
    }
    pattern += quantifiers[(*rng)() % quantifiers.size()];
  }
  return pattern;
}

std::string RandomText(std::mt19937* rng) {
  static const std::string alphabet = "aabbABx: (.)12]\n\t_\xc9\xe9";
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
    if (!Takes(*simple)) continue;
    ++taken;
    for (int t = 0; t < 40; ++t) {
      std::string text = RandomText(&rng);
      ASSERT_TRUE(SameAsRe2(*simple, re, text, text.empty() ? 0 : rng() % (text.size() + 1)));
      ++compared;
    }
  }
  EXPECT_GT(taken, 1000);  // the subset is not trivially small
  EXPECT_GT(compared, 40000);
}

TEST(SimplePattern, GivesRe2sAnswerOnRandomPatternsBeyondTheFlatSubset) {
  std::mt19937 rng(29);
  int taken = 0, compared = 0, matched = 0, gave_up = 0;
  for (int round = 0; round < 6000; ++round) {
    std::string pattern = RandomRichPattern(&rng);
    RE2 re(pattern, RE2::Latin1);
    if (!re.ok()) continue;
    auto simple = PatternProgram::Compile(pattern, PatternProgram::Starts::kAnywhere);
    if (!simple) continue;
    ++taken;
    ASSERT_EQ(simple->groups(), re.NumberOfCapturingGroups()) << pattern;
    for (int t = 0; t < 30; ++t) {
      std::string text = RandomText(&rng);
      size_t pos = text.empty() ? 0 : rng() % (text.size() + 1);
      ASSERT_TRUE(SameAsRe2(*simple, re, text, pos));
      matched += re.Match(text, pos, text.size(), RE2::UNANCHORED, nullptr, 0);
      gave_up += simple->Match(text, pos, nullptr, 0) == SimplePattern::Result::kGaveUp;
      ++compared;
    }
  }
  EXPECT_GT(taken, 2000);
  EXPECT_GT(matched, compared / 5);    // the texts exercise matches, not only misses
  EXPECT_LT(gave_up, compared / 100);  // and the answers are its own, not RE2's
}

TEST(SimplePattern, RefusesWhatItCannotAnswerExactly) {
  // Named classes, hex escapes, "[]...]", "{,3}" and counts with a leading zero (RE2 reads them its own way),
  // other flags, (?<name>...), and quantifiers over what can match empty.
  for (const char* pattern : {"[[:alpha:]]", "\\x41", "[]a]", "a{,3}", "a{01}", "a{0,01}", "(?:a|b{00,})",
                              "(?s).", "(?m)^a", "(?U)a+", "(?<n>a)", "\\pL", "\\Qa\\E", "a**", "(a*)*",
                              "(?:a|)+", "(?:\\b)?", "(?i)+", "(?:a?){2}"}) {
    EXPECT_FALSE(Takes(pattern)) << pattern;
    EXPECT_EQ(PatternProgram::Compile(pattern, PatternProgram::Starts::kAnywhere), nullptr) << pattern;
  }
  for (const char* pattern : {"a|b", "^a", "a$", "\\bword", "a+?", "(?i)oom", "(ab)+", "(a(b))", "a?a"})
    EXPECT_NE(PatternProgram::Compile(pattern, PatternProgram::Starts::kAnywhere), nullptr) << pattern;
  // A search that would try most places of a line is RE2's (its DFA is faster
  // there); one narrowed by a literal or a case-folded word is taken.
  for (const char* pattern : {"\\d+(?: free|x)", "(?i)\\w+ing", "(?i:\\b(?:a|b|c|d|e)x)", "\\b\\d+\\b"})
    EXPECT_FALSE(Takes(pattern)) << pattern;
  for (const char* pattern : {"GPU \\d+|TPU", "(?i:\\bsize\\s*=\\s*(\\d+))", "(?i:\\b(?:size|bytes)=)"})
    EXPECT_TRUE(Takes(pattern)) << pattern;
  EXPECT_TRUE(Takes(R"(Using \(GB\) (?P<u>[\d.]+) / (?P<l>[\d.]+))"));
}

TEST(SimplePattern, ReadsANulByteAsALiteral) {
  // Found by pattern_fuzzer: "^t\0" had been read as "^t*" (strchr finds the NUL
  // at the end of its list), which matched "" where RE2 matches nothing.
  std::string pattern("^t\0", 3), text("\xd0\xff c");
  RE2 re(pattern, RE2::Latin1);
  ASSERT_TRUE(re.ok());
  for (size_t pos = 0; pos <= text.size(); ++pos) {
    if (auto program = PatternProgram::Compile(pattern, PatternProgram::Starts::kAnywhere)) {
      EXPECT_TRUE(SameAsRe2(*program, re, text, pos));
    }
    EXPECT_TRUE(SameAsRe2(*SimplePattern::Compile(pattern), re, text, pos));
  }
  auto nul = PatternProgram::Compile(std::string("a\0b", 3), PatternProgram::Starts::kAnywhere);
  ASSERT_NE(nul, nullptr);  // a literal like any other byte
  std::string_view sub[1];
  EXPECT_EQ(nul->Match(std::string("xa\0b", 4), 0, sub, 1), SimplePattern::Result::kMatch);
  EXPECT_EQ(nul->Match("xab", 0, sub, 1), SimplePattern::Result::kNoMatch);
}

// Patterns that differ only in what their groups capture match alike; any other
// difference (an item, a quantifier, a set) or a pattern the flat subset does not
// take (left to a PatternProgram or RE2) is not taken as alike.
TEST(SimplePattern, TellsPatternsThatMatchAlike) {
  auto alike = [](const char* a, const char* b) {
    return SimplePattern::Compile(a)->MatchesAs(*SimplePattern::Compile(b));
  };
  EXPECT_TRUE(
      alike(R"(Using \(GB\) [\d.]+ / [\d.]+)", R"(Using \(GB\) (?P<used>[\d.]+) / (?P<limit>[\d.]+))"));
  EXPECT_TRUE(alike(R"(a(?:b)c+)", R"(a(b)c+)"));
  EXPECT_FALSE(alike(R"(Using \(GB\) [\d.]+)", R"(Using \(GB\) [\d.]+ / [\d.]+)"));  // fewer items
  EXPECT_FALSE(alike(R"(a\d+)", R"(a\d*)"));                                         // another quantifier
  EXPECT_FALSE(alike(R"(a\d+)", R"(a\w+)"));                                         // another set
  EXPECT_FALSE(alike(R"(xa\d+)", R"(ya\d+)"));                                       // another prefix
  EXPECT_FALSE(alike(R"((?i)out of memory)", R"((?i)out of memory)"));               // not the flat subset
}

TEST(SimplePattern, GivesUpToRe2OnCostlyText) {
  auto simple = SimplePattern::Compile("a+b");
  ASSERT_TRUE(Takes(*simple));
  std::string text(100000, 'a');  // every start reads to the end
  std::string_view sub[1];
  EXPECT_EQ(simple->Match(text, 0, sub, 1), SimplePattern::Result::kGaveUp);
  std::string ended = text + "b";
  EXPECT_EQ(simple->Match(ended, ended.size() - 3, sub, 1), SimplePattern::Result::kMatch);
  EXPECT_EQ(sub[0], "aab");
}

// A greedy loop over one set takes every byte it can and gives them back one at a
// time for what follows: the same groups as RE2, and a run of thousands of bytes
// holds one backtracking point (it used to push one per byte, and gave up at 512).
TEST(SimplePattern, AGreedyLoopGivesBytesBackAsRe2Would) {
  for (const char* pattern :
       {"(?i:size)\\s*=\\s*(\\d+)0(\\d*)", "(?i:x)(\\d*)(\\d)\\b", "(?i:a)([ab]*)b(b)"}) {
    RE2 re(pattern, RE2::Latin1);
    auto program = PatternProgram::Compile(pattern, PatternProgram::Starts::kAnywhere);
    ASSERT_NE(program, nullptr) << pattern;
    for (const char* text : {"size = 1000", "SIZE=10200 x", "x123 x4", "aabbb", "abab", "size=9", "x"})
      EXPECT_TRUE(SameAsRe2(*program, re, text, 0));
  }
  auto program = PatternProgram::Compile("(?i:x)(\\d*)5", PatternProgram::Starts::kAnywhere);
  ASSERT_NE(program, nullptr);
  std::string run = "x" + std::string(5000, '7') + "5";
  std::string_view sub[2];
  ASSERT_EQ(program->Match(run, 0, sub, 2), SimplePattern::Result::kMatch);
  EXPECT_EQ(sub[1].size(), 5000u);
  run.back() = '7';  // every byte given back, in vain
  EXPECT_EQ(program->Match(run, 0, sub, 2), SimplePattern::Result::kNoMatch);
}

TEST(SimplePattern, BuiltinPatternsItTakesAgreeWithRe2OnTheSamples) {
  RuleSet rules;
  std::vector<Problem> problems;
  ASSERT_TRUE(rules.LoadBuiltin(&problems));
  std::vector<std::string> texts;
  for (const auto& sig : RuleDataOf(rules).signatures) {
    for (const auto& sample : sig.samples) {
      std::string text = sample.json->value("text", "");
      texts.push_back(text);
      for (size_t start = 0, end = 0; start < text.size(); start = end + 1) {  // lines, as entries are read
        end = std::min(text.find('\n', start), text.size());
        texts.push_back(text.substr(start, end - start));
      }
    }
  }
  std::mt19937 rng(23);
  int taken = 0, patterns = 0;
  std::set<const RE2*> seen;  // a shared pattern (the general reader's figures) counts once
  auto check = [&](const RE2& re, const SimplePattern* simple) {
    if (!seen.insert(&re).second) return;
    ++patterns;
    if (!simple || !Takes(*simple)) return;
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
    for (const auto& pattern : sig.input_facts) check(*pattern.re, pattern.simple.get());
    if (sig.items)
      for (const auto& pattern : sig.items->fields) check(*pattern.re, pattern.simple.get());
  }
  EXPECT_GT(taken, patterns * 3 / 4) << taken << " of " << patterns;  // the fast path is common
}

}  // namespace
}  // namespace oomlens
