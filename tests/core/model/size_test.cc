#include "oomlens/size.h"

#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace oomlens {
namespace {

struct SizeCase {
  const char* text;
  int64_t bytes;
  double tolerance;
};

const SizeCase kSizes[] = {
    {"147.64M", 154811761, 0.005 * (1 << 20)},
    {"29.49G", 31664646390, 0.005 * (1LL << 30)},
    {"0B", 0, 0},
    {"4.0K", 4096, 0.05 * 1024},
    {"-2.55G", -2738041651, 0.005 * (1LL << 30)},
    {"3.47E", 4000637620985759232, 0.005 * 1152921504606846976.0},
    {"256.00MiB (268435456B)", 268435456, 0},
    {"2.00GiB (rounded to 2147483648)", 2147483648, 0},
    {"20.00 MiB", 20971520, 0.005 * (1 << 20)},
    {"15.78 GiB", 16943645983, 0.005 * (1LL << 30)},
    {"6,532,939,776 bytes", 6532939776, 0},
    {"4770354232 bytes", 4770354232, 0},
    {"3.95G (   4,237,689,856 bytes)", 4237689856, 0},
    {"-2.55G (  -2,735,391,744 bytes)", -2735391744, 0},
    {"32.00MiB (33554432B)", 33554432, 0},
    {"1024 kB", 1048576, 512},  // the kernel rounds to whole kB
    {"12345", 12345, 0},
    {"1.5e+09 bytes", 1500000000, 0},  // scientific notation: the whole number, not "1.5"
    {"2.5e+03 MiB", 2621440000, 0.5 * (1 << 20)},
    {"4E9 B", 4000000000, 0},
    {"16384 megabytes", 16384LL << 20, 0.5 * (1 << 20)},  // HTCondor spells units out
    {"1 gigabyte", 1LL << 30, 0.5 * (1LL << 30)},
    {"38427376kb", 38427376LL << 10, 512},  // PBS: lower case
    {"1.5 gb", 3LL << 29, 0.05 * (1LL << 30)},
};

TEST(ParseSize, Table) {
  for (const auto& c : kSizes) {
    std::string error;
    auto size = ParseSize(c.text, &error);
    ASSERT_TRUE(size.has_value()) << c.text << ": " << error;
    EXPECT_EQ(size->bytes, c.bytes) << c.text;
    EXPECT_NEAR(size->tolerance, c.tolerance, 1.0) << c.text;
  }
}

TEST(ParseSize, RejectsWhatIsNotASize) {
  // "1,5" is a decimal comma and "1 024" digits apart: refused, never read as 15 or 1
  const char* bad[] = {"",     "G",       "abc",  "1.5 parsecs",  "nan",  "inf",
                       "--5G", "1,5 GiB", "1,5G", "1 024.00 MiB", "8.00x"};
  for (const char* text : bad) {
    std::string error;
    EXPECT_FALSE(ParseSize(text, &error).has_value()) << text;
    EXPECT_FALSE(error.empty()) << text;
  }
}

TEST(ParseSize, RejectsOverflowWithAClearError) {
  std::string error;
  EXPECT_FALSE(ParseSize("9999999999999999999999G", &error).has_value());
  EXPECT_EQ(error, "'9999999999999999999999G' is too large to be a byte count");
  EXPECT_FALSE(ParseSize("99999999999999999999999999 bytes", &error).has_value());
}

TEST(ParseSize, AnExponentNoSizeCanHaveIsAnError) {
  std::string error;
  EXPECT_FALSE(ParseSize("1e400G", &error).has_value());
  EXPECT_EQ(error, "'1e400G' has an exponent out of range");
}

TEST(ParseSize, ReadsNumbersLongerThanItsInlineBuffer) {
  std::string error;
  auto padded = ParseSize(std::string(60, '0') + "1234.5" + std::string(40, '0') + " bytes", &error);
  ASSERT_TRUE(padded.has_value()) << error;
  EXPECT_EQ(padded->bytes, 1235);  // 1234.5 rounds up
  EXPECT_FALSE(ParseSize(std::string(80, '9') + "B", &error).has_value());
  EXPECT_NE(error.find("too large"), std::string::npos) << error;
}

TEST(ParseSize, ShortDecimalsReadExactlyAsFromChars) {
  std::mt19937_64 rng(31);
  std::string error;
  for (int round = 0; round < 100000; ++round) {
    std::string digits = std::to_string(rng() % 1000000000000000ULL);  // up to 15 digits
    size_t dot = rng() % (digits.size() + 1);
    if (dot < digits.size()) digits.insert(dot, ".");
    if (digits.front() == '.') digits.insert(0, "0");
    double expected = 0;
    ASSERT_EQ(std::from_chars(digits.data(), digits.data() + digits.size(), expected).ec, std::errc())
        << digits;
    auto size = ParseSize(digits + "K", &error);  // x 1024 keeps every bit of the value
    ASSERT_TRUE(size.has_value()) << digits << ": " << error;
    ASSERT_EQ(size->bytes, std::llround(expected * 1024.0)) << digits;
  }
}

// Every unit of one to three letters, in any case, read as the units' rule says:
// "B"; a prefix alone or with "B" (SI when asked for, else binary); a prefix with
// "iB" (binary); nothing else.
TEST(ParseSize, ReadsEveryShortUnitByTheRule) {
  const std::string letters = "kmgtpeibxKMGTPEIBX";
  const std::string prefixes = "kmgtpe";
  auto lower = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  std::vector<std::string> units;
  for (char a : letters) {
    units.push_back(std::string(1, a));
    for (char b : letters) {
      units.push_back(std::string{a, b});
      for (char c : letters) units.push_back(std::string{a, b, c});
    }
  }
  for (const std::string& unit : units) {
    for (bool decimal : {false, true}) {
      size_t prefix = prefixes.find(lower(unit[0]));
      int power = static_cast<int>(prefix) + 1;
      double expected = 0;  // not a unit
      if (unit.size() == 1 && lower(unit[0]) == 'b') expected = 1;
      bool prefix_b = unit.size() == 2 && lower(unit[1]) == 'b';
      if (prefix != std::string::npos && (unit.size() == 1 || prefix_b))
        expected = decimal ? std::pow(1000.0, power) : std::ldexp(1.0, 10 * power);
      if (prefix != std::string::npos && unit.size() == 3 && lower(unit[1]) == 'i' && lower(unit[2]) == 'b')
        expected = std::ldexp(1.0, 10 * power);
      std::string error;
      auto size = ParseSize("2" + unit, &error, decimal);
      ASSERT_EQ(size.has_value(), expected > 0) << unit << " " << error;
      if (size) {
        EXPECT_EQ(size->bytes, static_cast<int64_t>(2 * expected)) << unit << (decimal ? " SI" : "");
      }
    }
  }
}

// "3.30G" takes a one-pass reader; a leading space sends the same size through the
// general one. Both must agree on bytes, tolerance and errors.
TEST(ParseSize, TheSimpleShapeReadsAsTheGeneralReaderReadsIt) {
  const std::vector<std::string> units = {"",  "B", "K",  "KiB", "M", "MB", "G",    "GiB",
                                          "g", "T", "TB", "P",   "E", "X",  "bytes"};
  std::mt19937_64 rng(37);
  std::string error_fast, error_slow;
  for (int round = 0; round < 50000; ++round) {
    std::string digits = std::to_string(rng() % 100000000ULL);
    if (round % 4 == 0) {  // long numbers too: 15 significant digits is where the shortcut stops
      digits.clear();
      for (size_t n = 1 + rng() % 20; digits.size() < n;) digits += static_cast<char>('0' + rng() % 10);
    }
    size_t dot = rng() % (digits.size() + 2);
    if (dot > 0 && dot < digits.size()) digits.insert(dot, ".");
    std::string text = digits + units[rng() % units.size()];
    bool decimal = rng() % 2;
    auto fast = ParseSize(text, &error_fast, decimal);
    auto slow = ParseSize(" " + text, &error_slow, decimal);
    ASSERT_EQ(fast.has_value(), slow.has_value()) << text;
    if (!fast) continue;
    ASSERT_EQ(fast->bytes, slow->bytes) << text;
    ASSERT_EQ(fast->tolerance, slow->tolerance) << text;
  }
}

// A fraction of a byte rounds half away from zero, as std::llround does; the
// largest double below one half stays 0 (where adding 0.5 and truncating gives 1).
TEST(ParseSize, AFractionOfAByteRoundsHalfAwayFromZero) {
  std::string error;
  const std::pair<const char*, int64_t> cases[] = {
      {"2.5B", 3},        {"1.5B", 2},
      {"0.4B", 0},        {"-2.5B", -3},
      {"-0.5 bytes", -1}, {"0.49999999999999994B", 0},
      {"3.5", 4},         {"1.00G", 1073741824},
      {"0.0000001K", 0},  {"9007199254740993B", 9007199254740992}};
  for (const auto& [text, bytes] : cases) {
    auto size = ParseSize(text, &error);
    ASSERT_TRUE(size) << text << ": " << error;
    EXPECT_EQ(size->bytes, bytes) << text;
  }
}

TEST(FormatSize, MatchesXlaStyle) {
  EXPECT_EQ(FormatSize(0), "0B");
  EXPECT_EQ(FormatSize(1023), "1023B");
  EXPECT_EQ(FormatSize(154811761), "147.64M");
  EXPECT_EQ(FormatSize(31664646390), "29.49G");
  EXPECT_EQ(FormatSize(-2738041651), "-2.55G");
  EXPECT_EQ(FormatSize(1073741823), "1.00G");  // never "1024.00M"
}

}  // namespace
}  // namespace oomlens
