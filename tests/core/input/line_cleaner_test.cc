#include "core/input/line_cleaner.h"

#include <gtest/gtest.h>
#include <re2/re2.h>

#include <random>
#include <string>
#include <vector>

namespace oomlens {
namespace {

struct CleanCase {
  const char* raw;
  const char* message;
  const char* host;
  const char* level;
};

const CleanCase kCases[] = {
    {"E1130 12:00:00.123456  1234 file.cc:12] RESOURCE_EXHAUSTED: x", "RESOURCE_EXHAUSTED: x", "", "E"},
    {"F0000 00:00:1717141650.890307    9276 pjrt_computation_client.cc:487] msg", "msg", "", "F"},
    {"2022-04-04 00:27:49.642380: E tensorflow/compiler/xla/xla_client/xla_util.cc:88]   (1) msg", "(1) msg",
     "", "E"},
    {"2026-01-01T00:00:00.123Z msg", "msg", "", ""},
    {"2026-11-30 09:14:11,402 - train - ERROR - msg", "msg", "", "ERROR"},
    {"ERROR:root:msg", "msg", "", "ERROR"},
    {"INFO 03-21 20:15:44 [monitor.py:33] msg", "msg", "", "INFO"},
    {"[worker-3] E1130 12:00:00.123456  1234 file.cc:12] msg", "msg", "worker-3", "E"},
    {"[pod/llm-worker-2/main] msg", "msg", "llm-worker-2", ""},
    {"worker-3: msg", "msg", "worker-3", ""},
    {"scalellm          | ./entrypoint.sh: line 28: 7 Killed", "./entrypoint.sh: line 28: 7 Killed",
     "scalellm", ""},
    {"(EngineCore_DP0 pid=344) msg", "msg", "EngineCore_DP0 pid=344", ""},
    {"> `RESOURCE_EXHAUSTED: msg`", "RESOURCE_EXHAUSTED: msg", "", ""},
    {"# RESOURCE_EXHAUSTED: msg", "RESOURCE_EXHAUSTED: msg", "", ""},
    {"- msg", "msg", "", ""},
    {"```text", "", "", ""},
    {"[12345.678901] Out of memory", "Out of memory", "", ""},
    {"RuntimeError: Resource exhausted: x", "RuntimeError: Resource exhausted: x", "", ""},
    {"jaxlib.xla_extension.XlaRuntimeError: y", "jaxlib.xla_extension.XlaRuntimeError: y", "", ""},
    {"-2.55G is negative", "-2.55G is negative", "", ""},
};

TEST(LineCleaner, RecognisesPrefixesAndWrappers) {
  LineCleaner cleaner;
  for (const auto& c : kCases) {
    const CleanLine& line = cleaner.Clean(c.raw);
    EXPECT_EQ(line.message, c.message) << c.raw;
    EXPECT_EQ(line.context.host, c.host) << c.raw;
    EXPECT_EQ(line.context.level, c.level) << c.raw;
  }
}

// kubectl logs --timestamps puts an RFC 3339 time before the glog prefix: the year
// is kept, the glog stamp does not replace it (newcomer review, issue 32 item 12).
TEST(LineCleaner, ATimeWithAYearIsNotReplacedByAYearlessOne) {
  LineCleaner cleaner;
  const CleanLine& kubectl = cleaner.Clean(
      "2026-11-30T12:00:00.123456789Z E1130 12:00:00.000000 7 pjrt.cc:1] RESOURCE_EXHAUSTED: x");
  EXPECT_EQ(kubectl.message, "RESOURCE_EXHAUSTED: x");
  EXPECT_EQ(kubectl.context.level, "E");
  EXPECT_EQ(TimestampText(kubectl.context.timestamp), "2026-11-30T12:00:00");
  const CleanLine& glog = cleaner.Clean("E1130 12:00:00.000000 7 pjrt.cc:1] RESOURCE_EXHAUSTED: x");
  EXPECT_EQ(TimestampText(glog.context.timestamp), "--11-30T12:00:00");
  const CleanLine& both_dated = cleaner.Clean("2026-11-30T12:00:00Z 2026-11-30 12:00:05,402 - ERROR - x");
  EXPECT_EQ(TimestampText(both_dated.context.timestamp), "2026-11-30T12:00:05") << "the inner one, as before";
}

TEST(LineCleaner, RankTag) {
  LineCleaner cleaner;
  EXPECT_EQ(cleaner.Clean("[rank1]: torch.OutOfMemoryError: x").context.rank, "1");
}

TEST(LineCleaner, CarriageReturnsKeepTheLastOverwrite) {
  LineCleaner cleaner;
  const CleanLine& line = cleaner.Clean("step 1: 10%\rstep 1: 50%\rRESOURCE_EXHAUSTED: x\r\n");
  EXPECT_EQ(line.message, "RESOURCE_EXHAUSTED: x");
  EXPECT_EQ(line.display, "RESOURCE_EXHAUSTED: x");
}

TEST(LineCleaner, RemovesAnsiEscapes) {
  LineCleaner cleaner;
  EXPECT_EQ(cleaner.Clean("\x1b[31mERROR\x1b[0m: \x1b]0;title\x07x").display, "ERROR: x");
  EXPECT_EQ(StripAnsi("a\x1b"), "a");  // a lone ESC at the end is dropped, not read past
}

TEST(LineCleaner, SurvivesAdversarialPrefixes) {
  LineCleaner cleaner;
  std::string many;
  for (int i = 0; i < 1000; ++i) many += "> ";
  many += "msg";
  EXPECT_FALSE(cleaner.Clean(many).message.empty());  // bounded rounds, no hang
}

}  // namespace
}  // namespace oomlens

namespace oomlens {
namespace {

// The glog prefix read by hand against the regex the cleaner used to run.
TEST(GlogPrefix, AcceptsExactlyWhatTheRegexAccepts) {
  RE2 glog(R"(([IWEF])(\d{4} \d\d:\d\d:\d+(?:\.\d+)?)\s+\d+\s+[^\s\]]+:\d+\]\s?)", RE2::Latin1);
  ASSERT_TRUE(glog.ok());
  const std::vector<std::string> seeds = {"E1130 12:00:00.123456  1234 tpu_runtime.cc:88] RESOURCE_EXHAUSTED",
                                          "F0000 00:00:1717141650.89  77 a:b:12] x",
                                          "I0205 08:54:24.569114 130017276577600 max_utils.py:697]\tUsing",
                                          "W1130 12:00:00 5 f.py:1]", "I1130 1:00:00.1 5 f.py:1] x"};
  const std::string alphabet = "IWEF0123456789 :.]\tab";
  std::mt19937 rng(5);
  int accepted = 0;
  for (int round = 0; round < 200000; ++round) {
    std::string line = seeds[rng() % seeds.size()];
    for (int edits = static_cast<int>(rng() % 3); edits > 0; --edits) {  // mutate a few bytes
      size_t at = rng() % line.size();
      switch (rng() % 3) {
        case 0: line[at] = alphabet[rng() % alphabet.size()]; break;
        case 1: line.erase(at, 1); break;
        default: line.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
      }
      if (line.empty()) line = "I";
    }
    re2::StringPiece input(line), level, timestamp;
    bool expected = RE2::Consume(&input, glog, &level, &timestamp);
    std::string_view got_level, got_timestamp;
    size_t length = GlogPrefix(line, &got_level, &got_timestamp);
    ASSERT_EQ(length != 0, expected) << line;
    if (!expected) continue;
    ++accepted;
    ASSERT_EQ(length, line.size() - input.size()) << line;
    ASSERT_EQ(got_level, std::string_view(level.data(), level.size())) << line;
    ASSERT_EQ(got_timestamp, std::string_view(timestamp.data(), timestamp.size())) << line;
  }
  EXPECT_GT(accepted, 10000);  // the mutations leave many prefixes valid
}

// Mutations of seeds (a few bytes changed, dropped or added from alphabet), and
// whether a hand reader takes exactly the prefix and capture the regex takes, on
// the lines it is asked about (applies).
template <typename Reader, typename Applies>
int CompareWithRegex(const char* pattern, const std::vector<std::string>& seeds, const std::string& alphabet,
                     Reader read, Applies applies) {
  RE2 re(pattern, RE2::Latin1);
  EXPECT_TRUE(re.ok());
  std::mt19937 rng(11);
  int accepted = 0;
  for (int round = 0; round < 200000; ++round) {
    std::string line = seeds[rng() % seeds.size()];
    for (int edits = static_cast<int>(rng() % 3); edits > 0; --edits) {
      size_t at = rng() % line.size();
      switch (rng() % 3) {
        case 0: line[at] = alphabet[rng() % alphabet.size()]; break;
        case 1: line.erase(at, 1); break;
        default: line.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
      }
      if (line.empty()) line = "-";
    }
    if (!applies(line)) continue;
    re2::StringPiece input(line), capture;
    bool expected = RE2::Consume(&input, re, &capture);
    std::string_view got;
    size_t length = read(line, &got);
    EXPECT_EQ(length != 0, expected) << line;
    if (length == 0 || !expected) continue;
    ++accepted;
    EXPECT_EQ(length, line.size() - input.size()) << line;
    EXPECT_EQ(got, std::string_view(capture.data(), capture.size())) << line;
  }
  return accepted;
}

// The ISO timestamp prefix read by hand against the cleaner's regex.
TEST(IsoTimestampPrefix, AcceptsExactlyWhatTheRegexAccepts) {
  int accepted = CompareWithRegex(
      R"(\[?(\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?)\]?:?\s+)",
      {"2026-11-30 09:14:11,402 - trainer - INFO - x", "[2026-11-30T09:14:11.402Z]: OOM",
       "2026-11-30T09:14:11+05:30 x", "2026-11-30 09:14:11-0500\tx", "[2026-11-30 09:14:11] x",
       "2026-11-30T09:14:11Z] x"},
      "0123456789-+:.,TZ []\tx",
      [](std::string_view line, std::string_view* timestamp) { return IsoTimestampPrefix(line, timestamp); },
      [](const std::string&) { return true; });
  EXPECT_GT(accepted, 10000);
}

// Python logging's "- name - LEVEL - " read by hand against the cleaner's regex,
// for the texts it is asked about (those starting with '-').
TEST(DashLoggingPrefix, AcceptsExactlyWhatTheRegexAcceptsAfterADash) {
  int accepted = CompareWithRegex(
      R"(-?\s*[\w.]+ - (DEBUG|INFO|WARNING|ERROR|CRITICAL) - )",
      {"- trainer - INFO - epoch 0", "-  torch.cuda - WARNING - x", "- a_b.c - ERROR - ",
       "- x - CRITICAL - y", "-\tname - DEBUG - z"},
      "-_. \tINFOERRx",
      [](std::string_view line, std::string_view* level) { return DashLoggingPrefix(line, level); },
      [](const std::string& line) { return line[0] == '-'; });
  EXPECT_GT(accepted, 10000);
}

}  // namespace
}  // namespace oomlens

namespace oomlens {
namespace {

// The quick test may let through lines no prefix matches, never the reverse.
TEST(MayStartWithPrefix, NeverRefusesALineAPrefixPatternMatches) {
  const std::vector<std::string> pieces = {"worker",
                                           "-",
                                           "_",
                                           "3",
                                           "12",
                                           ":",
                                           " ",
                                           "|",
                                           " - ",
                                           "INFO",
                                           "ERROR",
                                           "WARNING",
                                           "root",
                                           ".",
                                           "x",
                                           "I",
                                           "E",
                                           "1130 12:00:00.1",
                                           "f.py:1]",
                                           "\t",
                                           "[",
                                           "]",
                                           "Memstats",
                                           "Using",
                                           "(GB)",
                                           "CRITICAL",
                                           "pid=3",
                                           "-3: ",
                                           "_12 | ",
                                           " - INFO - ",
                                           ":root:",
                                           " | ",
                                           "1130 ",
                                           "026-11-30 12:00:00",
                                           "-11-30T12:00:00Z ",
                                           ",5 "};
  std::mt19937 rng(29);
  int prefixed = 0;
  for (int round = 0; round < 200000; ++round) {
    std::string line = std::string(1, "IWEFMUwhrDC1207"[rng() % 15]);  // a word or a number
    for (int k = static_cast<int>(rng() % 7); k > 0; --k) line += pieces[rng() % pieces.size()];
    std::string_view level, timestamp;
    if (!StartsWithPrefix(line) || GlogPrefix(line, &level, &timestamp) > 0) continue;  // glog's: read first
    ++prefixed;
    ASSERT_TRUE(MayStartWithPrefix(line)) << "'" << line << "'";
  }
  EXPECT_GT(prefixed, 5000) << "the generator should make many prefixed lines";
  EXPECT_FALSE(MayStartWithPrefix("Memstats: step 1: Using (GB) 3.10 / 30.75"));
  EXPECT_FALSE(MayStartWithPrefix("Using (GB) 3.10 / 30.75 (11.0%) on TPU_1"));
  EXPECT_TRUE(MayStartWithPrefix("worker-3: RESOURCE_EXHAUSTED"));
  EXPECT_FALSE(MayStartWithPrefix("12:00:35,635 - the rest of a wrapped line"));
  EXPECT_FALSE(MayStartWithPrefix("0.586 grad_norm"));
  EXPECT_FALSE(MayStartWithPrefix("I1130 12:36:12.384864  103"));  // a glog prefix cut off: no regex
  EXPECT_TRUE(MayStartWithPrefix("E tensorflow/core/x.cc:88] oom"));
}

}  // namespace
}  // namespace oomlens
