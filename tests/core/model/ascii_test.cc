#include "core/model/ascii.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cstring>
#include <random>
#include <string>

namespace oomlens {
namespace {

// The program never sets a locale, so <cctype> answers for "C": the inline
// classes must give its answers for every byte (the readers replaced its calls).
TEST(AsciiClasses, AgreeWithTheCLocaleOnEveryByte) {
  for (int b = 0; b < 256; ++b) {
    char c = static_cast<char>(b);
    EXPECT_EQ(IsDigit(c), std::isdigit(b) != 0) << b;
    EXPECT_EQ(IsAlpha(c), std::isalpha(b) != 0) << b;
    EXPECT_EQ(IsAlnum(c), std::isalnum(b) != 0) << b;
    EXPECT_EQ(IsUpper(c), std::isupper(b) != 0) << b;
    EXPECT_EQ(IsLower(c), std::islower(b) != 0) << b;
    EXPECT_EQ(IsPunct(c), std::ispunct(b) != 0) << b;
  }
}

// Every length the word compares treat apart (0-3 byte by byte, 4-7 two 4-byte
// words, 8-16 two 8-byte words, longer with memcmp between), with the one byte
// that differs at every place: SameBytes agrees with memcmp.
TEST(SameBytes, AgreesWithMemcmpAtEveryLengthAndPlace) {
  for (size_t n = 0; n <= 40; ++n) {
    std::string a(n, 'x');
    for (size_t i = 0; i < n; ++i) a[i] = static_cast<char>('a' + i % 26);
    EXPECT_TRUE(SameBytes(a.data(), std::string(a).data(), n)) << n;
    for (size_t at = 0; at < n; ++at) {
      std::string b = a;
      b[at] = static_cast<char>(b[at] ^ 0x80);  // differs in the high bit only
      EXPECT_FALSE(SameBytes(a.data(), b.data(), n)) << "length " << n << ", byte " << at;
    }
  }
  EXPECT_FALSE(SameBytes("Using (GB)", "Using (GB"));  // sizes differ
  EXPECT_TRUE(SameBytes(std::string_view(), std::string_view()));
}

// FindBytes against std::string_view::find on random text of few letters (so
// needles occur, overlap and stop short at the end), from every start.
TEST(FindBytes, AgreesWithFindOnRandomText) {
  std::mt19937 random(7);
  for (int round = 0; round < 300; ++round) {
    std::string text(random() % 40, ' '), needle(1 + random() % 12, ' ');
    for (auto& c : text) c = "ab\x80"[random() % 3];
    for (auto& c : needle) c = "ab\x80"[random() % 3];
    for (size_t from = 0; from <= text.size() + 1; ++from)
      EXPECT_EQ(FindBytes(text, needle, from), std::string_view(text).find(needle, from))
          << "text '" << text << "' needle '" << needle << "' from " << from;
  }
  EXPECT_EQ(FindBytes(") on TPU_6(", ") on ", 0), 0u);
  EXPECT_EQ(FindBytes("(GB) 3.00 / 30.75 (13.0%) on TPU_6", ") on ", 0), 24u);
}

// FindTwoSpaces against find("  ") on random text of spaces and letters, from
// every start: the eight-at-a-time test reports the first run, never a later one.
TEST(FindTwoSpaces, AgreesWithFindOnRandomText) {
  std::mt19937 random(11);
  for (int round = 0; round < 2000; ++round) {
    std::string text(random() % 40, ' ');
    for (auto& c : text) c = random() % 3 == 0 ? 'x' : ' ';
    if (round % 2)
      for (auto& c : text) c = random() % 6 == 0 ? ' ' : "ab\x80\xa0"[random() % 4];
    for (size_t from = 0; from <= text.size() + 1; ++from)
      ASSERT_EQ(FindTwoSpaces(text, from), std::string_view(text).find("  ", from))
          << "text '" << text << "' from " << from;
  }
}

}  // namespace
}  // namespace oomlens
