// The paste restorer: logical lines back from text re-shaped by pasting, and
// machine logs left as they are.
#include "core/input/paste.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace oomlens {
namespace {

struct Logical {
  std::string text;
  uint64_t number;
  size_t physical;
};

// Restores text (lines split at '\n'); messages start where `starts` says.
std::vector<Logical> Restore(const std::string& text, PasteRestorer::StartsMessage starts = nullptr) {
  std::vector<Logical> out;
  PasteRestorer restorer(
      [&out](std::string_view line, uint64_t number, const std::string&,
             const std::vector<std::string_view>& physical, bool) {
        out.push_back({std::string(line), number, physical.size()});
      },
      std::move(starts));
  restorer.Begin();
  uint64_t number = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    restorer.Push(std::string_view(text).substr(start, end - start), ++number, "");
    start = end + 1;
  }
  restorer.Flush();
  return out;
}

const char kE0101[] =
    "RESOURCE_EXHAUSTED: Error loading program 'jit_step': Attempting to reserve 29.49G at the bottom of "
    "memory. "
    "That was not possible. There are 147.64M free, 0B reserved, and 147.64M reservable.";

TEST(PasteRestorer, AMessageWrappedAtSixtyColumnsIsOneLineAgain) {
  auto lines = Restore(
      "RESOURCE_EXHAUSTED: Error loading program 'jit_step':\n"
      "Attempting to reserve 29.49G at the bottom of memory. That\n"
      "was not possible. There are 147.64M free, 0B reserved, and\n"
      "147.64M reservable.\n");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].text, kE0101);
  EXPECT_EQ(lines[0].number, 1u);
  EXPECT_EQ(lines[0].physical, 4u);
}

TEST(PasteRestorer, QuotesBoldBackticksAndEntitiesGo) {
  auto lines = Restore(
      "> `Used **18.20G** of **15.48G** hbm. Exceeded hbm capacity by 2.72G &amp; more &gt; less.`\n");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].text, "Used 18.20G of 15.48G hbm. Exceeded hbm capacity by 2.72G & more > less.");
}

// Text quoted, then wrapped: the wrapped rest of a quoted line has no '>' of its own.
TEST(PasteRestorer, ALazyContinuationOfAQuotedLineJoinsIt) {
  auto lines = Restore(
      "> 2025-01-05 09:48:28.754874: I external/xla/xla/tsl/framework/bfc_allocator.cc:1114] InUse at\n"
      "797202000000 of size 4000000000 next 1\n"
      "> 2025-01-05 09:48:28.754893: I external/xla/xla/tsl/framework/bfc_allocator.cc:1114] InUse at\n"
      "7972f06b2800 of size 4000000000 next 2\n");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0].text.find("InUse at 797202000000 of size 4000000000"), std::string::npos)
      << lines[0].text;
  EXPECT_EQ(lines[1].number, 3u);
}

TEST(PasteRestorer, ALineCutInsideAMessagesStartJoins) {
  auto starts = [](std::string_view text) {
    return text.find("Killed process 7899") != std::string_view::npos;
  };
  auto lines = Restore(
      "[Sun Mar 30 08:24:00 2025] Out of memory: Killed process\n"
      "7899 (python) total-vm:26184840kB, anon-rss:15370088kB\n",
      starts);
  ASSERT_EQ(lines.size(), 1u);
}

TEST(PasteRestorer, PythonDoubleStarIsNoBold) {
  auto lines = Restore("    return self._call_impl(*args, **kwargs)\n");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].text, "    return self._call_impl(*args, **kwargs)");
}

TEST(PasteRestorer, ANumberAndItsUnitSplitByAWrapJoin) {
  auto lines = Restore(
      "E0101 ... the program needs more than the device has: 3.95\n"
      "GiB of HBM was asked for\n");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].text.find("3.95 GiB of HBM"), std::string::npos) << lines[0].text;
}

TEST(PasteRestorer, GutterAndNumberedListMarkersGo) {
  auto lines = Restore("  12 | 1. Tried to allocate 20.00 MiB\n  13 | 2. Size: 2.00G\n");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].text, "Tried to allocate 20.00 MiB");
  EXPECT_EQ(lines[1].text, "2. Size: 2.00G");  // an allocation listing numbers its entries
}

TEST(PasteRestorer, LogRecordsStayApartWhateverTheirLength) {
  std::string text =
      "I1130 12:00:00.000000  1234 train.py:10] step 100 loss=2.3010 tokens/s/device=4712 mfu=0.41 "
      "hbm=12.1G\n"
      "I1130 12:00:01.000000  1234 train.py:10] step 101 loss=2.2990\n"
      "E1130 12:00:02.000000  1234 pjrt.cc:1] RESOURCE_EXHAUSTED: Error allocating device buffer\n";
  auto lines = Restore(text);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[2].number, 3u);
}

TEST(PasteRestorer, ATracebackStaysATraceback) {
  auto lines = Restore(
      "Traceback (most recent call last):\n"
      "  File \"/home/user/train.py\", line 120, in training_loop_with_a_long_function_name\n"
      "    loss = step(state, batch)\n"
      "  File \"/usr/lib/python3/site-packages/jax/_src/traceback_util.py\", line 179, in reraise\n"
      "    return fun(*args, **kwargs)\n"
      "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate\n");
  EXPECT_EQ(lines.size(), 6u);
}

TEST(PasteRestorer, TableRowsAndListingsStayApart) {
  auto stats = Restore(
      "Stats:\nLimit:                 10625279591\nInUse:                  7350513920\n"
      "MaxInUse:               7464792320\n");
  EXPECT_EQ(stats.size(), 4u);
  auto chunks = Restore(
      "Chunk at 0x7f0a00000000 of size 1073741824 next 1 in use by the forward pass\n"
      "Chunk at 0x7f0a40000000 of size 1073741824 next 2 in use by the optimiser\n"
      "Chunk at 0x7f0a80000000 of size 536870912 next 3 in use by the forward pass\n");
  EXPECT_EQ(chunks.size(), 3u);
}

TEST(PasteRestorer, ALineHoldingAMessagesStartStaysApartUnlessCutMidSentence) {
  auto starts = [](std::string_view text) {
    return text.find("Attempting to reserve") != std::string_view::npos;
  };
  auto apart = Restore(
      "The job printed this error, which ends the first paragraph of the report here.\n"
      "Attempting to reserve 29.49G at the bottom of memory. That was not possible.\n",
      starts);
  EXPECT_EQ(apart.size(), 2u);
  auto joined = Restore(
      "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Error loading program\n"
      "'jit_train_step': Attempting to reserve 51.43G at the bottom of memory.\n",
      starts);
  ASSERT_EQ(joined.size(), 1u);
  EXPECT_NE(joined[0].text.find("program 'jit_train_step': Attempting"), std::string::npos);
}

// Two records that each start a message of one kind are two, whatever the previous
// one ends with (a GPU's name, an option): two GPUs' OOMs one under the other
// (attack review W2). A start of another kind may still be the rest of a wrap.
TEST(PasteRestorer, TwoStartsStayTwoRecords) {
  const std::string kTwo =
      "Resource exhausted: OOM when allocating tensor with shape[256,1024] on GPU:0 by allocator GPU_0_bfc\n"
      "Resource exhausted: OOM when allocating tensor with shape[512,1024] on GPU:1 by allocator GPU_1_bfc\n";
  auto one_kind = [](std::string_view text) {
    return text.find("OOM when") != std::string_view::npos ? 1 : 0;
  };
  EXPECT_EQ(Restore(kTwo, one_kind).size(), 2u);
  // Starts of two kinds are two records too, outside a block wrapped throughout: one
  // long line over another is no evidence of a wrap (the adjacent-samples property test)
  auto two_kinds = [](std::string_view text) { return text.find("GPU:0") != std::string_view::npos ? 1 : 2; };
  EXPECT_EQ(Restore(kTwo, two_kinds).size(), 2u);
}

TEST(PasteRestorer, FencesAndBlankLinesAreBreaks) {
  auto lines = Restore("```text\nOut of memory: Killed process 4242 (python)\n```\n\nnext\n");
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0].text, "");
  EXPECT_EQ(lines[1].text, "Out of memory: Killed process 4242 (python)");
  EXPECT_EQ(lines[1].number, 2u);
}

TEST(PasteRestorer, AMachineLogTurnsItOffAfterTheWindow) {
  std::vector<Logical> out;
  PasteRestorer restorer(
      [&out](std::string_view line, uint64_t number, const std::string&, const std::vector<std::string_view>&,
             bool) {
        out.push_back({std::string(line), number, 1});
      },
      nullptr);
  restorer.Begin();
  std::string line = "I1130 12:00:00.000000  1234 train.py:10] step 100 loss=2.3010 tokens/s/device=4712";
  uint64_t number = 0;
  while (number * (line.size() + 1) < PasteRestorer::kWindowBytes + 4096) restorer.Push(line, ++number, "");
  EXPECT_FALSE(restorer.active());
  EXPECT_EQ(out.size(), number);  // nothing held back, nothing joined
  restorer.Begin();
  EXPECT_TRUE(restorer.active());  // the next input is read as a paste again
}

// The whole first window is read, not only its start: a message whose start a
// wrap cut, after 96 KiB of plain log records, is joined (a restorer that left a
// plain-looking log early lost such OOMs: the first part holds no start, the
// second no literal).
TEST(PasteRestorer, AStartCutByAWrapDeepInTheFirstWindowJoins) {
  auto starts = [](std::string_view text) {
    return text.find("PT_DEVMEM Allocation failed") != std::string_view::npos ? 1 : 0;
  };
  std::string text;
  for (int step = 0; step < 1500; ++step)
    text += "I1130 12:00:00.000000  1234 train.py:10] step " + std::to_string(step) + " loss=2.3010\n";
  text +=
      "RuntimeError: [Rank:0] FATAL ERROR :: MODULE:PT_DEVMEM\n"
      "Allocation failed for size::4294967296 (4096)MB\n";
  ASSERT_GT(text.size(), 64u << 10);
  auto lines = Restore(text, starts);
  ASSERT_EQ(lines.size(), 1501u);
  EXPECT_EQ(lines.back().text,
            "RuntimeError: [Rank:0] FATAL ERROR :: MODULE:PT_DEVMEM Allocation failed for size::4294967296 "
            "(4096)MB");
  EXPECT_EQ(lines.back().number, 1501u);
}

// Records of nearly one width with a figure line under some of them (MaxText's
// "Memstats: ... Using (GB) ..." after a glog line): every line before a figure
// passes the greedy-wrap test, yet a figure cut before again and again, with no
// other line ever cut, is a record of its own. Joined, each figure took the line
// before it (its number and time), and the joins kept the restorer on to the end:
// 10x the cost of the log.
TEST(PasteRestorer, FigureLinesUnderRecordsOfOneWidthStayRecords) {
  auto starts = [](std::string_view text) {
    return text.find("Using (GB)") != std::string_view::npos ? 1 : 0;
  };
  std::vector<Logical> out;
  PasteRestorer restorer(
      [&out](std::string_view line, uint64_t number, const std::string&, const std::vector<std::string_view>&,
             bool) {
        out.push_back({std::string(line), number, 1});
      },
      starts);
  restorer.Begin();
  uint64_t number = 0, bytes = 0;
  while (bytes < PasteRestorer::kWindowBytes + 4096) {
    std::string record = "I1130 12:00:00.000000  1000 train.py:0] step " + std::to_string(10000 + number) +
                         " loss=0.8474 tokens/s/device=4700 mfu=0.40";
    std::string figure = "Memstats: step " + std::to_string(10000 + number) +
                         ": Using (GB) 3.10 / 30.75 (11.0%) on TPU_1(process=0,(1,0,0,0))";
    for (const std::string& line : {record, figure}) {
      restorer.Push(line, ++number, "");
      bytes += line.size() + 1;
    }
  }
  restorer.Flush();
  EXPECT_FALSE(restorer.active());
  ASSERT_EQ(out.size(), number);  // nothing joined
  EXPECT_EQ(out[1].text.rfind("Memstats: step", 0), 0u);
  EXPECT_EQ(out[1].number, 2u);
}

TEST(PasteRestorer, APastedLogKeepsItOn) {
  PasteRestorer restorer(
      [](std::string_view, uint64_t, const std::string&, const std::vector<std::string_view>&, bool) {},
      nullptr);
  restorer.Begin();
  std::string line = "> I1130 12:00:00.000000  1234 train.py:10] step 100 loss=2.3010 tokens/s/device=4712";
  for (uint64_t number = 1; number * (line.size() + 1) < 3 * PasteRestorer::kWindowBytes + 4096; ++number)
    restorer.Push(line, number, "");
  EXPECT_TRUE(restorer.active());  // every window looked pasted
}

// A machine log with a few decorated lines (2% list items, as YAML dumps or
// backticks leave) is read as a paste for its first window, not for the whole log
// (attack review R2: short lines then cost 20x to the end of a 100 MB log).
TEST(PasteRestorer, AFewDecoratedLinesDoNotKeepItOnPastTheSecondWindow) {
  uint64_t sent = 0;
  PasteRestorer restorer([&sent](std::string_view, uint64_t, const std::string&,
                                 const std::vector<std::string_view>&, bool) { ++sent; },
                         nullptr);
  restorer.Begin();
  uint64_t number = 0, bytes = 0;
  auto push_window = [&] {
    for (uint64_t end = bytes + PasteRestorer::kWindowBytes; bytes < end;) {
      std::string line = ++number % 50 == 0 ? "- a" : "a";
      bytes += line.size() + 1;
      restorer.Push(line, number, "");
    }
  };
  push_window();
  EXPECT_TRUE(restorer.active());  // 2% decorated: the first window's trace of a paste
  push_window();
  EXPECT_FALSE(restorer.active());
  EXPECT_EQ(sent, number);  // nothing held back
}

// What a wrap measured is counted eight bytes at a time: the same as one code point
// for every byte but a UTF-8 continuation byte, on text of every length and mix
// (ASCII, two- and three-byte characters, stray continuation and lead bytes).
TEST(PasteRestorer, ColumnsCountCodePointsLikeAByteLoop) {
  const std::vector<std::string> pieces = {"a",    " ",    ">",    "\xC3\xA9", "\xE2\x82\xAC",
                                           "\x80", "\xBF", "\xC3", "\xFF"};
  std::mt19937 rng(11);
  for (int round = 0; round < 3000; ++round) {
    std::string text = "x";  // no gutter, quote or list marker at the start
    for (size_t n = rng() % 60; n > 0; --n) text += pieces[rng() % pieces.size()];
    size_t expected = 0;
    for (char c : text) expected += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    EXPECT_EQ(PasteRestorer::Strip(text).columns, expected) << text;
  }
}

}  // namespace
}  // namespace oomlens

namespace oomlens {
namespace {

// IsBarePrefix refuses most lines by their last byte before cleaning them: it
// must answer as cleaning every line would. Lines are made of every kind of
// prefix the cleaner takes, then nothing, a level, or words, with the endings
// that could fool a test of the last byte (a fence's word, a ray tag's ')',
// ANSI escapes, carriage returns, tabs and form feeds).
TEST(PasteRestorerIsBarePrefix, AnswersAsCleaningTheLineWould) {
  const std::vector<std::string> prefixes = {"I1130 12:00:00.000000  1000 train.py:1] ",
                                             "E1130 12:00:00 7 f.cc:2]",
                                             "2025-07-31 20:22:43.04: ",
                                             "[2026-11-30T12:00:00Z] ",
                                             "[  12.345678] ",
                                             "[12.5]",
                                             "W tensorflow/core/x.cc:88] ",
                                             "- root - INFO - ",
                                             "ERROR:root:",
                                             "INFO 03-21 20:15:44 [file.py:33] ",
                                             "[WARNING] ",
                                             "[rank3]: ",
                                             "[rank3]",
                                             "(RayWorker pid=12, ip=10.0.0.1) ",
                                             "(RayWorker pid=12)",
                                             "[pod/worker-1/main] ",
                                             "worker-3: ",
                                             "web_1 | ",
                                             "##[error]",
                                             "> ",
                                             ">",
                                             "- ",
                                             "# ",
                                             "#",
                                             "```python",
                                             "```",
                                             "`"};
  const std::vector<std::string> rests = {
      "",       "I",  "WARNING", "E:",        " ERROR", "ERRORS:XYZ", "out of memory",
      "step 5", "x)", "a]",      "done:",     "ok>",    "n#",         "\t",
      "\f",     " ",  "\x1b[0m", "\x1b[31mE", "50%\r",  "bar\rINFO",  "\r",
      "I\r",    "``", "`I`",     "py",        "(x)",    "9",          "Z"};
  std::mt19937 rng(5);
  LineCleaner cleaner;
  int bare = 0;
  for (int round = 0; round < 60000; ++round) {
    std::string line;
    for (int k = 1 + static_cast<int>(rng() % 3); k > 0; --k) line += prefixes[rng() % prefixes.size()];
    for (int k = static_cast<int>(rng() % 3); k > 0; --k) line += rests[rng() % rests.size()];
    std::string_view message = cleaner.Clean(line).message;
    while (!message.empty() && (message.front() == ' ' || message.front() == '\t')) message.remove_prefix(1);
    bool expected = message.size() <= 8 && std::all_of(message.begin(), message.end(), [](char c) {
                      return (c >= 'A' && c <= 'Z') || c == ':';
                    });
    bare += expected;
    ASSERT_EQ(PasteRestorer::IsBarePrefix(line, &cleaner), expected) << "'" << line << "'";
  }
  EXPECT_GT(bare, 5000) << "the generator should make many bare prefixes";
}

}  // namespace
}  // namespace oomlens

namespace oomlens {
namespace {

// A line the reader's search found no literal in is not asked about again: the
// restorer sends it known to hold none. A line whose markup went (backticks can
// hide a literal: "out `of` memory") is asked all the same.
TEST(PasteRestorer, AClearLineIsNotSearchedAgainUnlessItsMarkupWent) {
  std::vector<std::string> asked;
  std::vector<int> known;
  PasteRestorer restorer(
      [&known](std::string_view, uint64_t, const std::string&, const std::vector<std::string_view>&,
               int known_start) { known.push_back(known_start); },
      [&asked](std::string_view text) {
        asked.emplace_back(text);
        return text.find("out of memory") != std::string_view::npos ? 1 : PasteRestorer::kNoLiteral;
      });
  restorer.Begin();
  restorer.Push("I1130 12:00:00.000000  1 a.py:1] step 1", 1, "", false, /*clear=*/true);
  restorer.Push("", 2, "");
  restorer.Push("CUDA out `of` memory", 3, "", false, /*clear=*/true);
  restorer.Push("", 4, "");
  restorer.Push("I1130 12:00:00.000000  1 a.py:1] step 2", 5, "");
  restorer.Flush();
  EXPECT_EQ(asked,
            (std::vector<std::string>{"CUDA out of memory", "I1130 12:00:00.000000  1 a.py:1] step 2"}));
  ASSERT_EQ(known.size(), 5u);
  EXPECT_EQ(known[0], PasteRestorer::kNoLiteral);
  EXPECT_EQ(known[4], PasteRestorer::kNoLiteral);
}

}  // namespace
}  // namespace oomlens
