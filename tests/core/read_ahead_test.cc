// Reading ahead on a second thread must not change a report: every bundled log,
// and logs built to put literals across chunk boundaries, in very long lines and
// on a last line without a newline, scanned both ways.
#include "core/read_ahead.h"

#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <string>
#include <vector>

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
  std::string ScanToJson(const std::string& path, bool read_ahead) {
    ScanOptions options;
    options.read_ahead = read_ahead;
    Scanner scanner(rules_, options);
    scanner.ScanFile(path, "");
    std::ostringstream out;
    RenderJson(scanner.Finish(), out);
    return out.str();
  }
  void ExpectSameReport(const std::string& path) {
    std::string alone = ScanToJson(path, false), ahead = ScanToJson(path, true);
    EXPECT_EQ(FirstDifference(ahead, alone), "") << path;
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
      "E1130 12:00:00.000000  77 tpu.cc:1] RESOURCE_EXHAUSTED: Error loading program 'jit_step': Attempting to "
      "reserve 29.49G at the bottom of memory. That was not possible. There are 147.64M free, 0B reserved, and "
      "147.64M reservable.\n";
  const std::string figure = "Memstats: step 7: Using (GB) 3.30 / 30.75 (11.0%) on TPU_1(process=0,(1,0,0,0))\n";
  std::mt19937 rng(41);
  std::string log;
  while (log.size() < 3 * ReadAheadSource::kChunk) {
    switch (rng() % 6) {
      case 0: log += seed; break;
      case 1: log += figure; break;
      case 2: log += std::string(rng() % 5000, 'x') + "\n"; break;
      default: log += "I1130 12:00:01.000000  77 train.py:9] step " + std::to_string(rng() % 1000) + " loss=0.5\n";
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

}  // namespace
}  // namespace oomlens
