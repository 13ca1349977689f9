// The input stage's normalisations in order, without any signature: what comes out
// of LogicalLines for CRI partials, carriage returns, JSON envelopes and pastes.
#include "core/input/logical_lines.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace oomlens {
namespace {

struct Got {
  std::string text, host;
  uint64_t number;
  bool known_candidate;
  size_t physical;  // printed lines it was restored from (0: as printed)
};

class LogicalLinesTest : public ::testing::Test {
 protected:
  LogicalLinesTest()
      : lines_(
            [this](const LogicalLine& l) {
              got_.push_back(Got{std::string(l.text), std::string(l.host), l.number, l.known_candidate,
                                 l.physical ? l.physical->size() : 0});
            },
            [](std::string_view text) { return text.find("OOM") != std::string_view::npos; },
            [this](std::string_view, bool) {
              ++questions_;
              return matters_;
            }) {
    lines_.Begin();
  }
  void Push(const std::string& text, uint64_t number, bool holds_hit = false) {
    held_.push_back(text);  // the views must outlive Push
    lines_.Push(Line{held_.back(), number, 0, false, holds_hit});
  }
  // Ends the paste restorer's window with a machine log's lines.
  void PastTheWindow() {
    uint64_t n = 1;
    for (size_t bytes = 0; bytes <= PasteRestorer::kWindowBytes; bytes += 40) {
      Push("I1130 12:00:00.000000 1 train.py:1] step", n++);
    }
    lines_.Flush();
    got_.clear();
    ASSERT_TRUE(lines_.idle());
  }
  std::vector<std::string> held_;
  std::vector<Got> got_;
  bool matters_ = true;
  int questions_ = 0;
  LogicalLines lines_;
};

TEST_F(LogicalLinesTest, ACriPartialWaitsForTheRestOfItsLine) {
  PastTheWindow();
  Push("2026-11-30T12:00:00.000000000Z stderr P RuntimeError: CUDA out of ", 7);
  EXPECT_TRUE(got_.empty());
  EXPECT_FALSE(lines_.idle());
  Push("2026-11-30T12:00:00.000000001Z stderr F memory. Tried to allocate 2.00 GiB", 8);
  ASSERT_EQ(got_.size(), 1u);
  EXPECT_EQ(got_[0].text, "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB");
  EXPECT_EQ(got_[0].number, 8u);
  EXPECT_TRUE(lines_.idle());
}

TEST_F(LogicalLinesTest, CarriageReturnsCutALineIntoLinesOfOneNumber) {
  PastTheWindow();
  Push("step 1:  40%|####  |\rstep 1: 100%|######|\rRuntimeError: out of memory\r", 3, true);
  ASSERT_EQ(got_.size(), 3u);
  EXPECT_EQ(got_[2].text, "RuntimeError: out of memory");
  for (const auto& g : got_) {
    EXPECT_EQ(g.number, 3u);
    EXPECT_FALSE(g.known_candidate) << "a part is not known to hold the literal the line held";
  }
}

TEST_F(LogicalLinesTest, AJsonEnvelopeGivesItsPayloadOnlyWhenItMayMatter) {
  PastTheWindow();
  const std::string envelope = R"({"log":"RuntimeError: out of memory\n","stream":"stderr"})";
  matters_ = false;
  Push(envelope, 5);
  ASSERT_EQ(got_.size(), 1u);
  EXPECT_EQ(got_[0].text, envelope) << "not unwrapped: nothing in it can matter";
  EXPECT_EQ(questions_, 1);
  got_.clear();
  matters_ = true;
  Push(envelope, 6);
  ASSERT_EQ(got_.size(), 1u);
  EXPECT_EQ(got_[0].text, "RuntimeError: out of memory");
  EXPECT_TRUE(got_[0].known_candidate) << "the envelope was asked about already";
  Push("no json here", 7);
  EXPECT_EQ(questions_, 2) << "only what looks like JSON is asked about";
}

TEST_F(LogicalLinesTest, APasteGetsItsLogicalLinesBackWithThePrintedOnes) {
  Push("> RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total", 1);
  Push("> capacity; 14.01 GiB already allocated)", 2);
  Push("", 3);
  lines_.Flush();
  ASSERT_GE(got_.size(), 1u);
  EXPECT_EQ(got_[0].text,
            "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total capacity; "
            "14.01 GiB already allocated)");
  EXPECT_EQ(got_[0].number, 1u);
  EXPECT_EQ(got_[0].physical, 2u);
}

// A structured logger's records among a machine log's lines (Go's zap, 10% of them)
// are records of their own: their payload never continues the line before it, so
// the restorer ends with its window (it stayed on for a whole log, 26.7x the CPU,
// and a record's message was joined into the OOM printed before it).
TEST_F(LogicalLinesTest, StructuredRecordsAreNeverAWrapsRest) {
  uint64_t n = 1;
  for (size_t bytes = 0; bytes <= 2 * PasteRestorer::kWindowBytes; n++) {  // payloads are shorter
    std::string line = n % 10 == 0
                           ? R"({"level":"info","ts":1700000000.5,"msg":"request served"})"
                           : "I1201 10:00:00.000000 123 train.py:42] step " + std::to_string(n) + " loss 0.5";
    bytes += line.size() + 1;
    Push(line, n);
  }
  lines_.Flush();
  for (const Got& g : got_) EXPECT_EQ(g.text.find("loss 0.5 request served"), std::string::npos) << g.text;
  EXPECT_TRUE(lines_.idle()) << "the restorer stayed on past its window";
}

TEST_F(LogicalLinesTest, ACriPartialWhoseRestNeverCameIsStillALine) {
  PastTheWindow();
  Push("2026-11-30T12:00:00.000000000Z stderr P RuntimeError: CUDA out of memory", 9);
  lines_.Flush();
  ASSERT_EQ(got_.size(), 1u);
  EXPECT_EQ(got_[0].text, "RuntimeError: CUDA out of memory");
  EXPECT_EQ(got_[0].number, 9u);
  EXPECT_TRUE(lines_.idle());
}

TEST_F(LogicalLinesTest, EndlessCriPartialsStayBounded) {
  PastTheWindow();
  const std::string chunk(64 * 1024, 'x');
  for (uint64_t n = 1; n <= 200; ++n) Push("2026-11-30T12:00:00.000000000Z stdout P " + chunk, n);
  ASSERT_GE(got_.size(), 2u) << "12.5 MiB of partials is handed on in pieces, not held";
  for (const auto& g : got_) EXPECT_LE(g.text.size(), LogicalLines::kMaxPartialBytes + chunk.size());
  EXPECT_EQ(got_[0].number, 1u);
}

// The restorer's start test searches each line for the rules' literals; a line it
// found none in (the whole line: no leading blank trimmed off) reaches recognition
// marked clear, which then does not search it again, and a line it found one in
// carries the test's answer (recognition need not look for its start again). An
// indented line (the test saw it without its indent) and lines joined from a wrap
// (a literal may span the join) carry none.
TEST(LogicalLines, ALineThePasteRestorerTestedCarriesWhatTheStartTestSaid) {
  std::vector<std::pair<std::string, int>> got;
  LogicalLines lines(
      [&got](const LogicalLine& l) {
        if (l.text.empty()) return;
        got.emplace_back(std::string(l.text), l.known_start);
        EXPECT_EQ(l.known_clear(), l.known_start == PasteRestorer::kNoLiteral);
      },
      [](std::string_view text) {
        if (text.find("lit") == std::string_view::npos) return PasteRestorer::kNoLiteral;
        return text.find("start") == std::string_view::npos ? 0 : 7;
      },
      [](std::string_view, bool) { return true; });
  lines.Begin();
  const std::vector<std::string> held = {"plain words here",
                                         "",
                                         "  indented words",
                                         "",
                                         "a lit line",
                                         "",
                                         "a lit start.",
                                         "",
                                         "aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj",
                                         "kkkk llll mmmm nnnn oooo pppp qqqq rrrr ssss tttt",
                                         "uuuu vvvv"};
  uint64_t number = 0;
  for (const auto& text : held) lines.Push(Line{text, ++number, 0, false, false});
  lines.Flush();
  ASSERT_EQ(got.size(), 5u);
  EXPECT_EQ(got[0], std::make_pair(std::string("plain words here"), PasteRestorer::kNoLiteral));
  EXPECT_EQ(got[1], std::make_pair(std::string("  indented words"), PasteRestorer::kNotTested));
  EXPECT_EQ(got[2], std::make_pair(std::string("a lit line"), 0));
  EXPECT_EQ(got[3], std::make_pair(std::string("a lit start."), 7));
  EXPECT_EQ(got[4].first.rfind("aaaa", 0), 0u);
  EXPECT_NE(got[4].first.find("uuuu vvvv"), std::string::npos);  // joined
  EXPECT_EQ(got[4].second, PasteRestorer::kNotTested);
}

}  // namespace
}  // namespace oomlens
