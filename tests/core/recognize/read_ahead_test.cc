// Reading ahead on a second thread must not change a report: every bundled log,
// and logs built to put literals across chunk boundaries, in very long lines and
// on a last line without a newline, scanned both ways.
#include "core/recognize/read_ahead.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/rules/prefilter.h"
#include "core/rules/rule_data.h"
#include "core/run/scan_testing.h"
#include "oomlens/render.h"
#include "oomlens/rules.h"
#include "oomlens/scanner.h"
#include "tests/cli/cli_harness.h"

namespace oomlens {
namespace {

class ReadAheadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<Problem> problems;
    ASSERT_TRUE(rules_.LoadBuiltin(&problems));
  }
  std::string ScanToJson(const std::string& path, bool read_ahead,
                         ReadFigures figures = ReadFigures::kWhenBehind,
                         size_t max_line = LineReader::kDefaultMaxLine) {
    ScanOptions options;
    options.read_ahead = read_ahead;
    options.max_line_bytes = max_line;
    Scanner scanner(rules_, options);
    ScannerTesting::SetReadFigures(&scanner, figures);
    ScannerTesting::ReadAheadWhateverTheProbe(&scanner);
    scanner.ScanFile(path, "");
    std::ostringstream out;
    RenderJson(scanner.Finish(), out);
    return out.str();
  }
  // Alone, read ahead, and read ahead with every figure line read by the second
  // thread or none: the same report.
  void ExpectSameReport(const std::string& path) {
    std::string alone = ScanToJson(path, false);
    for (auto figures : {ReadFigures::kWhenBehind, ReadFigures::kAlways, ReadFigures::kNever}) {
      EXPECT_EQ(FirstDifference(ScanToJson(path, true, figures), alone), "")
          << path << " (figures read ahead: " << static_cast<int>(figures) << ")";
    }
  }
  RuleSet rules_;
};

TEST_F(ReadAheadTest, EveryBundledLogGivesTheSameReport) {
  std::vector<std::string> logs;
  FindFiles(std::string(OOMLENS_SOURCE_DIR) + "/testdata", ".log", &logs);
  FindFiles(std::string(OOMLENS_SOURCE_DIR) + "/testdata", ".gz", &logs);
  ASSERT_GT(logs.size(), 50u);
  for (const auto& log : logs) ExpectSameReport(log);
}

TEST_F(ReadAheadTest, LiteralsAcrossChunksLongLinesAndAnUnfinishedLastLine) {
  const std::string seed =
      "E1130 12:00:00.000000  77 tpu.cc:1] RESOURCE_EXHAUSTED: Error loading program 'jit_step': Attempting "
      "to "
      "reserve 29.49G at the bottom of memory. That was not possible. There are 147.64M free, 0B reserved, "
      "and "
      "147.64M reservable.\n";
  const std::string figure =
      "Memstats: step 7: Using (GB) 3.30 / 30.75 (11.0%) on TPU_1(process=0,(1,0,0,0))\n";
  std::mt19937 rng(41);
  std::string log;
  while (log.size() < 3 * ReadAheadSource::kChunk) {
    switch (rng() % 6) {
      case 0: log += seed; break;
      case 1: log += figure; break;
      case 2: log += std::string(rng() % 5000, 'x') + "\n"; break;
      default:
        log += "I1130 12:00:01.000000  77 train.py:9] step " + std::to_string(rng() % 1000) + " loss=0.5\n";
    }
  }
  for (size_t k = 1; k <= 3; ++k) {  // a literal split by each chunk boundary
    size_t at = k * ReadAheadSource::kChunk - 12;
    log.insert(at, "\n" + figure.substr(0, figure.size() - 1) + "\n");
  }
  log += std::string(3 << 20, 'y') + " Using (GB) 9.00 / 30.75 (29.0%) on TPU_2\n";  // past the carry cap
  log += std::string(2 << 20, 'z') + "\n";                                           // long, no literal
  log += figure.substr(0, figure.size() - 1);                                        // no newline at the end
  ScratchDir dir;
  ExpectSameReport(dir.Write("mixed.log", log));
  std::string json = ScanToJson(dir.path() + "/mixed.log", true);
  EXPECT_NE(json.find("tpu_program_load"), std::string::npos);  // the messages were found, not just agreed on
}

// An interrupted scan of a pipe whose writer has gone quiet ends without waiting
// for the writer: the second batch, written only after the scan returned (or after
// 5 s, should it hang), must not be in the report.
TEST_F(ReadAheadTest, AnInterruptEndsAWaitOnAQuietPipe) {
  for (bool read_ahead : {true, false}) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    std::string batch;
    for (int i = 0; i < 50; ++i)
      batch += "I1130 12:00:00.000000  77 train.py:9] step " + std::to_string(i) + "\n";
    ASSERT_EQ(::write(fds[1], batch.data(), batch.size()), static_cast<ssize_t>(batch.size()));
    std::atomic<bool> returned{false};
    std::thread writer([&] {
      for (int tick = 0; tick < 500 && !returned.load(); ++tick)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      (void)!::write(fds[1], batch.data(), batch.size());
      ::close(fds[1]);
    });
    std::atomic<bool> cancel{false};
    ScanOptions options;
    options.read_ahead = read_ahead;
    options.cancel = &cancel;
    Scanner scanner(rules_, options);
    std::thread interrupt([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the first batch is read by then
      cancel.store(true);
    });
    bool ok = scanner.ScanFd(fds[0], "<pipe>", "");
    returned.store(true);
    interrupt.join();
    writer.join();
    ::close(fds[0]);
    Report report = scanner.Finish();
    EXPECT_FALSE(ok) << read_ahead;
    EXPECT_TRUE(report.interrupted) << read_ahead;
    ASSERT_EQ(report.inputs.size(), 1u);
    EXPECT_LE(report.inputs[0].lines, 50u)
        << "the scan waited for the writer (read ahead: " << read_ahead << ")";
  }
}

// A figure line longer than the line cap is read cut by the scanner; the
// read-ahead thread must not read it whole instead.
TEST_F(ReadAheadTest, FigureLinesPastTheLineCapAreReadCutEitherWay) {
  std::string text;  // a growing series on one device, then an OOM the series is attached to
  for (int i = 0; i < 8; ++i)
    text += "Using (GB) " + std::to_string(10 + 2 * i) + ".00 / 30.75" + std::string(60, ' ') +
            "(11.0%) on TPU_0(process=0)\n";
  text += "Attempting to reserve 29.49G at the bottom of memory.\n";
  ScratchDir dir;
  std::string path = dir.Write("long_figures.log", text);
  std::string alone = ScanToJson(path, false, ReadFigures::kWhenBehind, 64);
  EXPECT_EQ(FirstDifference(ScanToJson(path, true, ReadFigures::kAlways, 64), alone), "");
  EXPECT_NE(alone.find("series_name"), std::string::npos);  // the figures are in the report
  EXPECT_EQ(alone.find("TPU_"), std::string::npos);         // but not the device, past the cut
}

TEST_F(ReadAheadTest, HoldsAFewChunksWhateverTheLineLength) {
  std::string text = "Memstats: step 1: Using (GB) 3.30 / 30.75 (11.0%) on TPU_1(process=0,(1,0,0,0))\n";
  text += std::string(40 * ReadAheadSource::kChunk, 'x') + "\n";  // one line, cut by the reader at 4 MiB
  text += "Memstats: step 2: Using (GB) 3.40 / 30.75 (11.0%) on TPU_1(process=0,(1,0,0,0))\n";
  StringSource source(text);
  FigureReader figures(RuleDataOf(rules_), std::make_shared<const Prefilter>(rules_.Literals()));
  ReadAheadSource ahead(&source, &figures, ReadFigures::kAlways);
  LineReader reader(&ahead);
  Line line;
  size_t lines = 0;
  for (;; ++lines) {
    reader.SkipUntil(
        [&ahead](std::string_view t, uint64_t offset, NewlineTally*) { return ahead.Find(t, offset); });
    if (!reader.Next(&line)) break;
    ahead.PreparedAt(line.offset);
  }
  EXPECT_EQ(lines, 3u);
  EXPECT_LE(ahead.most_chunks_held(), 3u);  // not the 16 chunks of the long line's first 4 MiB
}

TEST_F(ReadAheadTest, TheSecondThreadReadsFigureLinesForTheScanner) {
  std::string text = "I1130 12:00:00.000000  77 train.py:9] step 1 loss=0.5\n";
  uint64_t figure_offset = text.size();
  text += "Memstats: step 1: Using (GB) 3.30 / 30.75 (11.0%) on TPU_1(process=0,(1,0,0,0))\n";
  text +=
      "E1130 12:00:01.000000  77 tpu.cc:1] RESOURCE_EXHAUSTED: Attempting to reserve 29.49G at the bottom of "
      "memory.\n";
  StringSource source(text);
  FigureReader figures(RuleDataOf(rules_), std::make_shared<const Prefilter>(rules_.Literals()));
  ReadAheadSource ahead(&source, &figures, ReadFigures::kAlways);
  LineReader reader(&ahead);
  std::vector<uint64_t> candidates;
  std::vector<std::optional<PreparedFigure>> prepared;  // asked for as the scanner does, line by line
  Line line;
  for (;;) {
    reader.SkipUntil(
        [&ahead](std::string_view t, uint64_t offset, NewlineTally*) { return ahead.Find(t, offset); });
    if (!reader.Next(&line)) break;
    candidates.push_back(line.offset);
    const PreparedFigure* read_ahead = ahead.PreparedAt(line.offset);
    prepared.push_back(read_ahead ? std::optional<PreparedFigure>(*read_ahead) : std::nullopt);
  }
  ASSERT_EQ(candidates.size(), 2u);  // the figure and the OOM; not the step line
  EXPECT_EQ(candidates[0], figure_offset);
  const PreparedFigure* figure = prepared[0] ? &*prepared[0] : nullptr;
  ASSERT_NE(figure, nullptr);
  EXPECT_EQ(figure->sig->id, "maxtext_memstats");
  const FactValue* used = figure->figure.Find(FindFact("sample_used_bytes"));
  ASSERT_NE(used, nullptr);
  EXPECT_EQ(used->text, "3.30G");
  EXPECT_EQ(used->integer, static_cast<int64_t>(3.30 * (1 << 30) + 0.5));
  EXPECT_FALSE(prepared[1].has_value());  // an OOM message is the recogniser's
}

TEST(ReadAheadPays, OnlyWhereTheFirstBytesHoldEnoughCandidateLines) {
  RuleSet rules;
  std::vector<Problem> problems;
  ASSERT_TRUE(rules.LoadBuiltin(&problems));
  Prefilter prefilter(rules.Literals());
  std::string quiet, heavy;
  for (int i = 0; i < 2000; ++i) {
    std::string step = "I1130 12:00:00.000000  1000 train.py:1] step " + std::to_string(i) + " loss=0.8474\n";
    quiet += step;
    heavy += step + "Memstats: step " + std::to_string(i) + ": Using (GB) 3.10 / 30.75 (11.0%) on TPU_1\n";
  }
  EXPECT_FALSE(ReadAheadPays(quiet, quiet.substr(0, 4096), prefilter));
  EXPECT_TRUE(ReadAheadPays(heavy, heavy.substr(0, 4096), prefilter));
  // A few candidate lines are not enough; the last one may lack its newline.
  std::string few = quiet + "Memstats: step 1: Using (GB) 3.10 / 30.75 (11.0%) on TPU_1";
  EXPECT_FALSE(ReadAheadPays(few, few.substr(0, 4096), prefilter));
  // Compressed input (its text is not its bytes): decompression moves to the second thread.
  EXPECT_TRUE(ReadAheadPays("\x1f\x8b\x08\x00 compressed bytes", quiet.substr(0, 4096), prefilter));
}

}  // namespace
}  // namespace oomlens
