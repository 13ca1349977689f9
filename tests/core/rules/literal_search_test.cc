// The fast path's literal search against the obvious search, on text built from
// pieces of the literals (so near misses are frequent) and on realistic lines.
#include "core/rules/literal_search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "core/input/count_newlines.h"
#include "core/rules/prefilter.h"
#include "oomlens/rules.h"

namespace oomlens {
namespace {

const std::vector<std::string> kLiterals = {"Attempting to reserve",
                                            "RESOURCE_EXHAUSTED",
                                            "Using (GB)",
                                            "exit code",
                                            "OOMKilled",
                                            "GiB /",
                                            "memory used",
                                            "{'loss':",
                                            "bad_alloc",
                                            " of size ",
                                            "CUDA error: out of memory"};

// Indices of literals present in text, by std::string_view::find.
std::set<size_t> NaiveWhich(const std::vector<std::string>& literals, std::string_view text) {
  std::set<size_t> out;
  for (size_t i = 0; i < literals.size(); ++i)
    if (text.find(literals[i]) != std::string_view::npos) out.insert(i);
  return out;
}

// The start of the first line holding a literal, or npos.
size_t NaiveFirstLine(const std::vector<std::string>& literals, std::string_view text) {
  size_t line = 0;
  while (line <= text.size()) {
    size_t end = text.find('\n', line);
    std::string_view piece =
        text.substr(line, end == std::string_view::npos ? std::string_view::npos : end - line);
    if (!NaiveWhich(literals, piece).empty()) return line;
    if (end == std::string_view::npos) break;
    line = end + 1;
  }
  return std::string_view::npos;
}

size_t LineStart(std::string_view text, size_t pos) {
  size_t nl = text.rfind('\n', pos);
  return nl == std::string_view::npos ? 0 : nl + 1;
}

// Random text from literal fragments, whole literals, noise bytes and newlines.
std::string RandomText(std::mt19937* rng, const std::vector<std::string>& literals, size_t pieces) {
  std::string out;
  std::uniform_int_distribution<int> what(0, 9);
  for (size_t i = 0; i < pieces; ++i) {
    const std::string& lit = literals[(*rng)() % literals.size()];
    switch (what(*rng)) {
      case 0: out += lit; break;
      case 1:
      case 2:
      case 3: {
        size_t from = (*rng)() % lit.size();
        out += lit.substr(from, (*rng)() % (lit.size() - from + 1));
        break;
      }
      case 4: out += '\n'; break;
      case 5: out += static_cast<char>((*rng)() % 256); break;
      default: out += "xy z19.: "[(*rng)() % 9]; break;
    }
  }
  return out;
}

class LiteralSearchEveryPass : public ::testing::TestWithParam<LiteralSearch::FirstPass> {};

// kLiterals with one shorter literal: the fingerprints are that literal's length.
std::vector<std::string> WithShortest(const std::string& shortest) {
  std::vector<std::string> literals = kLiterals;
  if (!shortest.empty()) literals.push_back(shortest);
  return literals;
}

TEST_P(LiteralSearchEveryPass, AgreesWithPlainFindOnRandomTextForEveryFingerprintLength) {
  for (const std::string shortest : {"OOM", "OOM!", ""}) {
    const std::vector<std::string> literals = WithShortest(shortest);
    auto search = LiteralSearch::Build(literals, GetParam());
    ASSERT_NE(search, nullptr);
    ASSERT_EQ(search->fingerprint_length(), shortest.empty() ? 5 : static_cast<int>(shortest.size()));
    std::mt19937 rng(7);
    for (int round = 0; round < 3000; ++round) {
      std::string text = RandomText(&rng, literals, 1 + rng() % 120);
      std::set<size_t> found;
      search->ForEach(text, [&found](size_t i) {
        found.insert(i);
        return true;
      });
      ASSERT_EQ(found, NaiveWhich(literals, text)) << "text: " << text;
      std::vector<size_t> collected = {99};  // cleared first
      search->Collect(text, &collected);
      ASSERT_EQ(std::set<size_t>(collected.begin(), collected.end()), found) << "text: " << text;
      NewlineTally counted{99, 99};  // reset by the search
      size_t first = search->FindInFirstLine(text, &counted);
      // Counted up to the hit's line at most (a window can start inside the literal).
      ASSERT_LE(counted.through, text.size()) << "text: " << text;
      ASSERT_EQ(counted.newlines, CountNewlines(text.data(), counted.through)) << "text: " << text;
      if (first < counted.through) {
        ASSERT_EQ(CountNewlines(text.data() + first, counted.through - first), 0u) << "text: " << text;
      }
      size_t expected = NaiveFirstLine(literals, text);
      if (expected == std::string_view::npos) {
        ASSERT_EQ(first, std::string_view::npos) << "text: " << text;
      } else {
        ASSERT_NE(first, std::string_view::npos) << "text: " << text;
        ASSERT_EQ(LineStart(text, first), expected) << "text: " << text;
      }
    }
  }
}

TEST_P(LiteralSearchEveryPass, FindsALiteralAtEveryOffsetAndAtTheVeryEnd) {
  auto search = LiteralSearch::Build(kLiterals, GetParam());
  ASSERT_NE(search, nullptr);
  for (size_t pad = 0; pad < 150; ++pad) {  // crosses every place in the 32- and 64-byte windows
    std::string text = std::string(pad, 'a') + "Using (GB)";
    EXPECT_EQ(search->FindInFirstLine(text), pad) << pad;
    EXPECT_EQ(search->FindInFirstLine(text.substr(0, text.size() - 1)), std::string_view::npos) << pad;
  }
}

// A byte above 0x7f looks up its ASCII alias's entry in VBMI's seven-bit tables:
// a literal written with the high bit set on every byte passes that lookup and
// must still not be found, in any place of a window, nor hide a real one after it.
TEST_P(LiteralSearchEveryPass, ALiteralsHighBitAliasIsNotFound) {
  auto search = LiteralSearch::Build(kLiterals, GetParam());
  ASSERT_NE(search, nullptr);
  for (const std::string& literal : kLiterals) {
    std::string alias = literal;
    for (char& c : alias) c = static_cast<char>(static_cast<unsigned char>(c) | 0x80);
    for (size_t pad = 0; pad < 70; ++pad) {
      std::string text = std::string(pad, 'a') + alias + alias;
      EXPECT_EQ(search->FindInFirstLine(text), std::string_view::npos) << literal << " " << pad;
      EXPECT_EQ(search->FindInFirstLine(text + literal), text.size()) << literal << " " << pad;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(FirstPass, LiteralSearchEveryPass,
                         ::testing::Values(LiteralSearch::FirstPass::kFastest,
                                           LiteralSearch::FirstPass::kAvx512Bw,
                                           LiteralSearch::FirstPass::kAvx2,
                                           LiteralSearch::FirstPass::kPortable));

TEST(LiteralSearch, ReportsTheLineOfTheEarliestLiteralWhateverTheFingerprints) {
  auto search = LiteralSearch::Build(kLiterals);
  ASSERT_NE(search, nullptr);
  std::string text = "no literal here\nexit code 137 and Attempting to reserve\nOOMKilled\n";
  size_t hit = search->FindInFirstLine(text);
  ASSERT_NE(hit, std::string_view::npos);
  EXPECT_EQ(LineStart(text, hit), 16u);
}

TEST(LiteralSearch, DeclinesLiteralsItCannotFingerprint) {
  EXPECT_EQ(LiteralSearch::Build({}), nullptr);
  EXPECT_EQ(LiteralSearch::Build({"ok", "Using (GB)"}), nullptr);          // shorter than 3 bytes
  EXPECT_EQ(LiteralSearch::Build({"two\nlines"}), nullptr);                // a newline
  EXPECT_EQ(LiteralSearch::Build({"\xc3\xa9\xc3\xa9\xc3\xa9"}), nullptr);  // no 3 ASCII bytes in a row
  auto three = LiteralSearch::Build({"OOM", "bad_alloc"});
  ASSERT_NE(three, nullptr);
  EXPECT_EQ(three->fingerprint_length(), 3);
  EXPECT_NE(three->FindInFirstLine("std::bad_alloc"), std::string_view::npos);
}

TEST(LiteralSearch, NonAsciiBytesAroundLiteralsDoNotConfuseIt) {
  auto search = LiteralSearch::Build({"r\xc3\xa9serve memory", "OOMKilled"});
  ASSERT_NE(search, nullptr);
  std::string text = std::string(40, '\xff') + "r\xc3\xa9serve memory" + std::string(40, '\x80');
  EXPECT_EQ(search->FindInFirstLine(text), 40u);
  EXPECT_EQ(search->FindInFirstLine(std::string(100, '\xc3')), std::string_view::npos);
}

TEST(Prefilter, TheBuiltinLiteralsGiveTheSameAnswersAsARegexWould) {
  RuleSet rules;
  std::vector<Problem> problems;
  ASSERT_TRUE(rules.LoadBuiltin(&problems));
  const std::vector<std::string> literals = rules.Literals();
  Prefilter prefilter(literals);
  std::mt19937 rng(11);
  std::vector<size_t> present;
  for (int round = 0; round < 500; ++round) {
    std::string line = RandomText(&rng, literals, 1 + rng() % 40);
    line.erase(std::remove(line.begin(), line.end(), '\n'), line.end());
    std::set<size_t> expected = NaiveWhich(literals, line);
    ASSERT_EQ(prefilter.MayMatch(line), !expected.empty()) << line;
    ASSERT_EQ(prefilter.Which(line, &present), !expected.empty()) << line;
    std::set<size_t> got(present.begin(), present.end());
    ASSERT_EQ(got, expected) << line;
  }
}

// The first pass searches only the literals that hold no other: one written
// twice is kept once, one holding another is left to the other.
TEST(Prefilter, LiteralsHeldByOthersOrWrittenTwiceStillLetTheirLinesThrough) {
  const std::vector<std::string> literals = {"out of memory", "of mem",    "twice!", "out of memory",
                                             "twice!",        "OOMKilled", "killed"};
  Prefilter prefilter(literals);
  for (const auto& literal : literals) {
    EXPECT_TRUE(prefilter.MayMatch("x " + literal + " y")) << literal;
    std::vector<size_t> present;
    EXPECT_TRUE(prefilter.Which("x " + literal + " y", &present)) << literal;
  }
  EXPECT_FALSE(prefilter.MayMatch("out of me twice OOMKille kill"));
}

}  // namespace
}  // namespace oomlens
