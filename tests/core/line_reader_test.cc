#include "core/line_reader.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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
