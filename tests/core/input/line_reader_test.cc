#include "core/input/line_reader.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "core/input/count_newlines.h"
#include "core/rules/literal_search.h"

namespace oomlens {
namespace {

std::vector<Line> ReadAll(const std::string& text, size_t chunk, size_t max_line,
                          std::vector<std::string>* texts) {
  StringSource source(text);
  LineReader reader(&source, chunk, max_line);
  std::vector<Line> lines;
  Line line;
  while (reader.Next(&line)) {
    lines.push_back(line);
    texts->emplace_back(line.text);
  }
  return lines;
}

TEST(LineReader, SplitsLinesAcrossChunks) {
  std::vector<std::string> texts;
  auto lines = ReadAll("alpha\nbeta\n\ngamma", 3, 64, &texts);
  ASSERT_EQ(texts, (std::vector<std::string>{"alpha", "beta", "", "gamma"}));
  EXPECT_EQ(lines[3].number, 4u);
  EXPECT_EQ(lines[1].offset, 6u);
  EXPECT_EQ(lines[3].offset, 12u);
}

TEST(LineReader, CutsLongLinesAndSkipsTheirRest) {
  std::string text = std::string(100, 'x') + "\nshort\n" + std::string(10, 'y');
  std::vector<std::string> texts;
  auto lines = ReadAll(text, 7, 16, &texts);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_TRUE(lines[0].truncated);
  EXPECT_EQ(texts[0], std::string(16, 'x'));
  EXPECT_FALSE(lines[1].truncated);
  EXPECT_EQ(texts[1], "short");
  EXPECT_EQ(lines[1].offset, 101u);
  EXPECT_EQ(texts[2], std::string(10, 'y'));
}

TEST(LineReader, LineExactlyAtTheCapIsNotTruncated) {
  std::vector<std::string> texts;
  auto lines = ReadAll(std::string(16, 'z') + "\nnext\n", 5, 16, &texts);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_FALSE(lines[0].truncated);
  EXPECT_EQ(texts[1], "next");
}

TEST(LineReader, KeepsNulAndBinaryBytes) {
  std::string text("a\0b\xff\n", 5);
  std::vector<std::string> texts;
  ReadAll(text, 2, 64, &texts);
  ASSERT_EQ(texts.size(), 1u);
  EXPECT_EQ(texts[0], std::string("a\0b\xff", 4));
}

TEST(LineReader, EmptyInputHasNoLines) {
  std::vector<std::string> texts;
  EXPECT_TRUE(ReadAll("", 4, 8, &texts).empty());
}

}  // namespace
}  // namespace oomlens

namespace oomlens {
namespace {

TEST(CountNewlines, AgreesWithStdCountAtEveryLengthAndAlignment) {
  std::string text;
  for (int i = 0; i < 20000; ++i) text += (i * 7919) % 13 == 0 ? '\n' : static_cast<char>('a' + i % 26);
  text += std::string(9000, '\n');  // more than 255 blocks of newlines: the per-byte counters must not wrap
  for (size_t from : {0, 1, 5, 31}) {
    for (size_t size : {0, 1, 31, 32, 33, 95, 8191, 8192 + 7, 20000, 29000 - 31}) {
      ASSERT_EQ(CountNewlines(text.data() + from, size),
                static_cast<size_t>(std::count(text.data() + from, text.data() + from + size, '\n')))
          << from << " " << size;
    }
  }
}

}  // namespace
}  // namespace oomlens

namespace oomlens {
namespace {

TEST(LineReader, MarksTheLineHoldingTheHitOfSkipUntil) {
  std::string text = "noise\nmore noise\nthe HIT line\nafter\n";
  StringSource source(text);
  LineReader reader(&source, 8, 64);  // small chunks: the hit is found after refills
  reader.SkipUntil([](std::string_view t, uint64_t, NewlineTally*) { return t.find("HIT"); });
  Line line;
  ASSERT_TRUE(reader.Next(&line));
  EXPECT_EQ(line.text, "the HIT line");
  EXPECT_EQ(line.number, 3u);
  EXPECT_TRUE(line.holds_hit);
  ASSERT_TRUE(reader.Next(&line));
  EXPECT_EQ(line.text, "after");
  EXPECT_FALSE(line.holds_hit);
}

// The literal search counts the newlines of the windows it passes: the reader
// counts only the rest, and every line number stays exact, whatever the chunk
// and wherever the hits and the chunk ends fall.
TEST(LineReader, NewlinesTheFinderCountedAreNotCountedAgain) {
  auto search = LiteralSearch::Build({"OOMKilled", "RESOURCE_EXHAUSTED"});
  ASSERT_NE(search, nullptr);
  std::mt19937 rng(5);
  std::string text;
  std::vector<uint64_t> expected;  // numbers of the lines holding a literal
  for (uint64_t number = 1; number <= 3000; ++number) {
    text += std::string(rng() % 200, "ab 19:."[rng() % 7]);
    if (rng() % 40 == 0) {
      text += rng() % 2 ? "OOMKilled" : "RESOURCE_EXHAUSTED";
      expected.push_back(number);
    }
    text += "\n";
  }
  for (size_t chunk : {64, 1000, 65536}) {
    StringSource source(text);
    LineReader reader(&source, chunk, 1 << 20);
    std::vector<uint64_t> found;
    Line line;
    for (;;) {
      reader.SkipUntil([&search](std::string_view t, uint64_t, NewlineTally* counted) {
        return search->FindInFirstLine(t, counted);
      });
      if (!reader.Next(&line)) break;
      if (line.holds_hit) found.push_back(line.number);
    }
    EXPECT_EQ(found, expected) << chunk;
    EXPECT_EQ(reader.lines_read(), 3000u) << chunk;
  }
}

// Reading every line with MarkClear before each: a line marked clear holds no
// literal (never a wrong mark), most lines without one are marked (92% here:
// after two hit lines in a row the next search waits a line or more), the
// lines and their numbers are those read without it, and a line too long for
// the buffer is never marked. Chunks from 64 bytes (shorter than many lines:
// there only the marks are checked) up.
TEST(LineReader, MarkClearMarksOnlyLinesWithoutAHit) {
  auto search = LiteralSearch::Build({"OOMKilled", "RESOURCE_EXHAUSTED"});
  ASSERT_NE(search, nullptr);
  std::mt19937 rng(11);
  std::string text;
  for (int number = 1; number <= 3000; ++number) {
    size_t length = rng() % 120;  // one call a statement: the same text whatever the compiler
    char fill = "ab 19:."[rng() % 7];
    text += std::string(length, fill);
    if (rng() % 5 == 0) text += rng() % 2 ? "OOMKilled" : "RESOURCE_EXHAUSTED";
    if (rng() % 500 == 0) text += std::string(300, 'z');  // longer than the cap below
    text += "\n";
  }
  text += "OOMKilled at the end, no newline";
  LineReader::Finder find = [&search](std::string_view t, uint64_t, NewlineTally* counted) {
    return search->FindInFirstLine(t, counted);
  };
  for (size_t chunk : {64, 1000, 65536}) {
    std::vector<std::string> plain;
    ReadAll(text, chunk, 256, &plain);
    StringSource source(text);
    LineReader reader(&source, chunk, 256);
    Line line;
    size_t lines = 0, without = 0, marked = 0;
    for (reader.MarkClear(find); reader.Next(&line); reader.MarkClear(find)) {
      ASSERT_LT(lines, plain.size()) << chunk;
      EXPECT_EQ(line.text, plain[lines]) << chunk;
      ++lines;
      EXPECT_EQ(line.number, lines) << chunk;
      bool holds = search->FindInFirstLine(line.text) != std::string_view::npos;
      if (line.clear) {
        EXPECT_FALSE(holds || line.truncated) << chunk << " line " << line.number;
      }
      without += !holds && !line.truncated;
      marked += line.clear;
    }
    EXPECT_EQ(lines, plain.size()) << chunk;
    if (chunk < 256) continue;  // chunks shorter than a line: marks checked, not how many
    EXPECT_GE(marked * 10, without * 8) << chunk << ": " << marked << " of " << without << " marked";
  }
}

}  // namespace
}  // namespace oomlens
