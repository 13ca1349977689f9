// Which OOM ended the job: the work its input (or its host's stream) shows after
// an incident's last occurrence decides whether the job went on, and the report
// lists the incidents that ended a job first.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "oomlens/gate.h"
#include "oomlens/merge.h"
#include "oomlens/render.h"
#include "tests/core/scan_fixture.h"

namespace oomlens {
namespace {

const char kCompileOom[] =
    "XlaRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space "
    "hbm. Used 41.20G of 31.25G hbm. Exceeded hbm capacity by 9.95G.\n";
const char kRuntimeOom[] =
    "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate "
    "2.00G. That was not possible. There are 1.12G free.; (0x0x0_HBM0)\n";
const char kCompile[] =
    "I1130 10:00:02.000000 7 pxla.py:1912] Compiling train_step with global shapes and types [].\n";

std::string Steps(int from, int to, int start_minute = 10) {
  std::string out;
  for (int k = from; k < to; ++k) {
    char line[160];
    std::snprintf(line, sizeof line,
                  "I1130 10:%02d:00.000000 7 train.py:500] completed step: %d, loss: 2.9\n",
                  start_minute + k % 50, k);
    out += line;
  }
  return out;
}

// Each line of text as a kubectl-style stream "host: line" prints it.
std::string Tagged(const std::string& host, const std::string& text) {
  std::string out;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    end = end == std::string::npos ? text.size() : end + 1;
    out += host + ": " + text.substr(at, end - at);
    at = end;
  }
  return out;
}

class AftermathTest : public ScanFixture {};

TEST_F(AftermathTest, TheFatalOomIsListedBeforeTheOneTheJobSurvived) {
  std::string log = std::string(kCompile) + kCompileOom + "retrying with a smaller batch\n" + kCompile +
                    Steps(0, 7) + "Traceback (most recent call last):\n" + kRuntimeOom + "exiting\n";
  Report report = Scan(log);
  ASSERT_EQ(report.incidents.size(), 2u);
  const Incident& fatal = report.incidents[0];
  const Incident& survived = report.incidents[1];
  EXPECT_EQ(fatal.code, "E0100");
  EXPECT_TRUE(fatal.after.ended_job());
  EXPECT_EQ(fatal.after.work, 0u);
  EXPECT_EQ(survived.code, "E1000");
  EXPECT_FALSE(survived.after.ended_job());
  EXPECT_EQ(survived.after.steps, 7u);
  EXPECT_EQ(survived.after.work, 8u);   // the recompile and seven steps
  EXPECT_EQ(survived.after.lines, 9u);  // from line 2 to the last step, line 11
  EXPECT_EQ(survived.after.last.line, 2u);
}

TEST_F(AftermathTest, AnOomAtTheEndEndedTheJobWhateverFollowsThatIsNotWork) {
  Report report = Scan(std::string(kCompile) + Steps(0, 3) + kRuntimeOom +
                       "Traceback (most recent call last):\n  File \"train.py\", line 3\nSIGTERM received\n");
  ASSERT_EQ(report.incidents.size(), 1u);
  EXPECT_TRUE(report.incidents[0].after.ended_job());
  EXPECT_EQ(report.incidents[0].after.last.line, 5u);
}

TEST_F(AftermathTest, ARepeatedOomIsJudgedByItsLastOccurrence) {
  Report report = Scan(std::string(kRuntimeOom) + Steps(0, 4) + kRuntimeOom);
  ASSERT_EQ(report.incidents.size(), 1u);
  EXPECT_EQ(report.incidents[0].occurrences, 2u);
  EXPECT_EQ(report.incidents[0].after.last.line, 6u);
  EXPECT_TRUE(report.incidents[0].after.ended_job());
}

TEST_F(AftermathTest, TimeAfterTheOomComesFromTheTimestampsOfItsWork) {
  std::string oom = std::string("I1130 10:05:00.000000 7 train.py:9] ") + kCompileOom;
  Report report = Scan(oom + Steps(0, 3, 10) + kRuntimeOom);  // steps at 10:10, 10:11, 10:12
  ASSERT_EQ(report.incidents.size(), 2u);
  const Incident& survived = report.incidents[1];
  ASSERT_FALSE(survived.after.ended_job());
  EXPECT_DOUBLE_EQ(survived.after.seconds, 7 * 60.0);
}

TEST_F(AftermathTest, WorkOfAnotherHostDoesNotMeanThisHostWentOn) {
  // worker-1 failed and went on for two steps; worker-0 printed three more after them, then failed.
  std::string log = Tagged("worker-0", Steps(0, 1)) + Tagged("worker-1", kRuntimeOom) +
                    Tagged("worker-1", Steps(1, 3)) + Tagged("worker-0", Steps(3, 6)) +
                    Tagged("worker-0", kCompileOom);
  Report report = Scan(log);
  ASSERT_EQ(report.incidents.size(), 2u);
  for (const auto& incident : report.incidents) {
    SCOPED_TRACE(incident.code);
    EXPECT_EQ(incident.after.last_host, incident.code == "E0100" ? "worker-1" : "worker-0");
  }
  const Incident& e0100 = report.incidents[0].code == "E0100" ? report.incidents[0] : report.incidents[1];
  EXPECT_FALSE(e0100.after.ended_job());  // worker-1's own steps came after it
  EXPECT_EQ(e0100.after.steps, 2u);       // worker-0's three later steps are not counted
}

TEST_F(AftermathTest, OneLineOfWorkAfterItIsNotEnoughToSayTheJobWentOn) {
  // Without host tags, one step after an OOM may be another process's last line.
  Report report = Scan(std::string(kRuntimeOom) + Steps(0, 1) + "Traceback (most recent call last):\n");
  ASSERT_EQ(report.incidents.size(), 1u);
  EXPECT_TRUE(report.incidents[0].after.ended_job());
  EXPECT_EQ(report.incidents[0].after.work, 1u);  // counted, and said
}

TEST_F(AftermathTest, ProgressLinesOfOtherTrainersCountAsSteps) {
  // Megatron-LM, DeepSpeed and Keras print their own progress lines (rules/signatures/activity.json).
  const std::vector<std::string> progress = {
      " iteration       20/     500 | consumed samples:         1280 | elapsed time per iteration (ms): "
      "1834.2 |\n",
      "[2024-03-01 10:00:00,123] [INFO] [logging.py:96:log_dist] [Rank 0] step=20, skipped=0, lr=[1.5e-05]\n",
      "100/100 [==============================] - 5s 50ms/step - loss: 0.1234\n",
  };
  for (const std::string& line : progress) {
    Report report = Scan(std::string(kRuntimeOom) + line + line);
    ASSERT_EQ(report.incidents.size(), 1u) << line;
    EXPECT_FALSE(report.incidents[0].after.ended_job()) << line;
    EXPECT_EQ(report.incidents[0].after.steps, 2u) << line;
  }
}

TEST_F(AftermathTest, FailOnEndedFailsOnlyTheOomThatEndedTheJob) {
  std::string survived = std::string(kCompileOom) + kCompile + Steps(0, 5);
  FailGate ended("ended");
  EXPECT_FALSE(ended.Fails(Scan(survived)));
  EXPECT_TRUE(ended.Fails(Scan(survived + kRuntimeOom)));
  EXPECT_TRUE(FailGate("oom").Fails(Scan(survived)));
}

TEST_F(AftermathTest, AJsonReportKeepsTheAftermathAndTheOrder) {
  Report scanned = Scan(std::string(kCompileOom) + kCompile + Steps(0, 5) + kRuntimeOom);
  Report read = ThroughJson(scanned);
  ASSERT_EQ(read.incidents.size(), 2u);
  for (size_t k = 0; k < 2; ++k) {
    SCOPED_TRACE(k);
    const Aftermath &a = scanned.incidents[k].after, &b = read.incidents[k].after;
    EXPECT_EQ(b.went_on, a.went_on);
    EXPECT_EQ(b.work, a.work);
    EXPECT_EQ(b.steps, a.steps);
    EXPECT_EQ(b.lines, a.lines);
    EXPECT_EQ(b.last.line, a.last.line);
    EXPECT_EQ(b.last_input_index, 0);
  }
  Report merged = MergeReports({read, read}, rules_, "");
  ASSERT_EQ(merged.incidents.size(), 2u);
  EXPECT_TRUE(merged.incidents[0].after.ended_job());
  EXPECT_FALSE(merged.incidents[1].after.ended_job());
}

TEST_F(AftermathTest, AReportWrittenBeforeTheFieldReadsAsEnded) {
  Report scanned = Scan(std::string(kCompileOom) + kCompile + Steps(0, 5));
  std::ostringstream out;
  RenderJson(scanned, out);
  std::string text = out.str();
  size_t at = text.find("\"ended_job\"");
  ASSERT_NE(at, std::string::npos);
  size_t end = text.find("\"cause\"", at);
  text.erase(at, end - at);  // "ended_job" and "after" gone, as an older oomlens wrote it
  Report read;
  std::string error;
  ASSERT_TRUE(ParseJsonReport(text, &read, &error)) << error;
  ASSERT_EQ(read.incidents.size(), 1u);
  EXPECT_TRUE(read.incidents[0].after.ended_job());
}

TEST_F(AftermathTest, TextSaysTheJobWentOnAndWhichEndedIt) {
  Report report = Scan(std::string(kCompileOom) + kCompile + Steps(0, 5) + kRuntimeOom);
  std::ostringstream out;
  RenderText(report, RenderOptions{}, out);
  EXPECT_NE(out.str().find("after     the job went on after this: 5 steps, 1 compile over 6 lines"),
            std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("after     ended the job: no work after it"), std::string::npos);
  std::ostringstream one_line;
  RenderText(Scan(std::string(kCompileOom) + kCompile + Steps(0, 5) + kRuntimeOom + Steps(5, 6)),
             RenderOptions{}, one_line);
  EXPECT_NE(
      one_line.str().find("ended the job: only 1 line of work after it, which may be another process's"),
      std::string::npos)
      << one_line.str();
  std::ostringstream alone;
  RenderText(Scan(kRuntimeOom), RenderOptions{}, alone);
  EXPECT_EQ(alone.str().find("after  "), std::string::npos);  // nothing to tell apart
}

}  // namespace
}  // namespace oomlens
