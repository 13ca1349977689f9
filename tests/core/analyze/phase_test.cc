// When it ran out: an incident's phase comes from its message family, else from
// the last sign of phase before it (the innermost traceback frame that names one, a
// line that starts a phase) with no completed step between, else from the steps and
// compiles counted around it. The phase changes the advice (rules/causes/phases.json).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/render/verdict.h"
#include "oomlens/render.h"
#include "tests/core/scan_fixture.h"

namespace oomlens {
namespace {

const char kTorchOom[] =
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 12.21 GiB. GPU 0 has a total capacity of "
    "79.15 GiB of which 6.83 GiB is free. Including non-PyTorch memory, this process has 72.31 GiB memory in "
    "use. Of the allocated memory 66.95 GiB is allocated by PyTorch, and 4.85 GiB is reserved by PyTorch but "
    "unallocated.\n";
const char kCompileOom[] =
    "XlaRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out of memory in memory space "
    "hbm. Used 41.20G of 31.25G hbm. Exceeded hbm capacity by 9.95G.\n";

std::string Steps(int count) {
  std::string out;
  for (int k = 0; k < count; ++k)
    out += "{'loss': 1.88, 'grad_norm': 1.0, 'epoch': 0." + std::to_string(k) + "}\n";
  return out;
}

std::string Frame(const std::string& function) {
  return "  File \"/usr/lib/python3/dist-packages/transformers/trainer.py\", line 3680, in " + function +
         "\n    x = f(y)\n";
}

bool AdviceSays(const Incident& incident, const std::string& words) {
  const auto& advice = incident.diagnosis.advice;
  return std::any_of(advice.begin(), advice.end(),
                     [&words](const std::string& a) { return a.find(words) != std::string::npos; });
}

class PhaseTest : public ScanFixture {};

TEST_F(PhaseTest, TheInnermostFrameThatNamesAPhaseDecides) {
  std::string log = Steps(5) + "Traceback (most recent call last):\n" + Frame("train") +
                    Frame("_inner_training_loop") + Frame("_maybe_log_save_evaluate") + Frame("evaluate") +
                    Frame("evaluation_loop") + Frame("forward") + kTorchOom;
  Report report = Scan(log);
  ASSERT_EQ(report.incidents.size(), 1u);
  const Phase& phase = report.incidents[0].phase;
  EXPECT_EQ(phase.Name(), "eval");
  EXPECT_EQ(phase.where.line, 15u)
      << "the evaluation_loop frame (5 steps, the Traceback line, 4 frames of 2 lines)";
  EXPECT_NE(phase.evidence.find("in evaluation_loop"), std::string::npos) << phase.evidence;
}

// TensorFlow prints the op's Python frames below the message ("Detected at node ...
// defined at"); a traceback may follow a logged error too. With no sign before the
// OOM, the innermost frame below it decides, until the job shows it went on.
TEST_F(PhaseTest, FramesPrintedBelowTheMessagePlaceIt) {
  const std::string tf =
      "tensorflow.python.framework.errors_impl.ResourceExhaustedError: Graph execution error:\n\n"
      "Detected at node 'model/conv2d/Relu' defined at (most recent call last):\n";
  const std::string oom =
      "OOM when allocating tensor with shape[32,256,62,62] and type float on "
      "/job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc\n";
  Report below = Scan(oom + tf + Frame("fit") + Frame("evaluate") + Frame("call"));
  ASSERT_EQ(below.incidents.size(), 1u);
  EXPECT_EQ(below.incidents[0].phase.Name(), "eval");
  EXPECT_EQ(below.incidents[0].phase.where.line, 7u) << "the evaluate frame";
  EXPECT_EQ(below.incidents[0].phase.evidence.rfind("after it: ", 0), 0u)
      << below.incidents[0].phase.evidence;

  Report went_on = Scan(oom + "***** Running Evaluation *****\n" + Frame("evaluate"));
  ASSERT_EQ(went_on.incidents.size(), 1u);
  EXPECT_NE(went_on.incidents[0].phase.Name(), "eval") << "the job went on to evaluate: a later traceback";

  Report stepped = Scan(oom + Steps(1) + Frame("evaluate"));
  ASSERT_EQ(stepped.incidents.size(), 1u);
  EXPECT_NE(stepped.incidents[0].phase.Name(), "eval") << "a step came between";

  std::string far = oom;
  for (int k = 0; k < 250; ++k) far += "INFO data loader warming up\n";
  Report distant = Scan(far + Frame("evaluate"));
  ASSERT_EQ(distant.incidents.size(), 1u);
  EXPECT_NE(distant.incidents[0].phase.Name(), "eval") << "250 lines below: not its traceback";

  Report before = Scan(Frame("training_step") + oom + Frame("evaluate"));
  ASSERT_EQ(before.incidents.size(), 1u);
  EXPECT_EQ(before.incidents[0].phase.Name(), "step") << "a frame above decides first";
}

TEST_F(PhaseTest, AnEvaluationOomIsNotFixedByASmallerTrainingBatch) {
  std::string eval = Steps(5) + "***** Running Evaluation *****\n  Num examples = 2000\n" + kTorchOom;
  std::string step = Steps(5) + kTorchOom;
  Report in_eval = Scan(eval), in_step = Scan(step);
  ASSERT_EQ(in_eval.incidents.size(), 1u);
  ASSERT_EQ(in_step.incidents.size(), 1u);
  EXPECT_EQ(in_eval.incidents[0].phase.Name(), "eval");
  EXPECT_EQ(in_step.incidents[0].phase.Name(), "step");
  EXPECT_TRUE(AdviceSays(in_eval.incidents[0], "per_device_eval_batch_size"));
  EXPECT_FALSE(AdviceSays(in_eval.incidents[0], "accumulate gradients"));
  EXPECT_TRUE(AdviceSays(in_step.incidents[0], "accumulate gradients"));
  EXPECT_FALSE(AdviceSays(in_step.incidents[0], "per_device_eval_batch_size"));
}

TEST_F(PhaseTest, AStepLineAfterASignEndsItsPhase) {
  std::string log = "***** Running Evaluation *****\n" + Steps(3) + kTorchOom;
  Report report = Scan(log);
  ASSERT_EQ(report.incidents.size(), 1u);
  EXPECT_EQ(report.incidents[0].phase.Name(), "step");
  EXPECT_EQ(report.incidents[0].phase.where.line, 4u) << "the last step line";
}

TEST_F(PhaseTest, ASignTooFarBeforeTheOomDecidesNothing) {
  std::string log = "***** Running Evaluation *****\n";
  for (int k = 0; k < 600; ++k) log += "INFO metrics written\n";
  log += kTorchOom;
  Report report = Scan(log);
  ASSERT_EQ(report.incidents.size(), 1u);
  EXPECT_EQ(report.incidents[0].phase.Name(), "unknown");
  EXPECT_EQ(PhaseText(report.incidents[0].phase), "");
}

TEST_F(PhaseTest, TheMessageFamilyDecidesBeforeAnySign) {
  std::string log = "***** Running Evaluation *****\n" + std::string(kCompileOom);
  Report report = Scan(log);
  ASSERT_EQ(report.incidents.size(), 1u);
  EXPECT_EQ(report.incidents[0].phase.Name(), "compile");
  EXPECT_EQ(report.incidents[0].phase.where.line, 0u);
}

TEST_F(PhaseTest, NoStepBeforeItButStepsAfterItIsTheWarmup) {
  std::string log = std::string(kTorchOom) + "retrying with a smaller batch\n" + Steps(4);
  Report report = Scan(log);
  ASSERT_EQ(report.incidents.size(), 1u);
  EXPECT_EQ(report.incidents[0].phase.Name(), "warmup");
  EXPECT_NE(report.incidents[0].phase.evidence.find("4 after it"), std::string::npos);
  const auto& evidence = report.incidents[0].diagnosis.evidence;
  EXPECT_TRUE(std::any_of(evidence.begin(), evidence.end(), [](const std::string& e) {
    return e.find("before any step completed") != std::string::npos;
  })) << "phase.warmup_not_leak";
}

TEST_F(PhaseTest, AStepFrameBeforeAnyCompletedStepIsTheWarmup) {
  std::string log = "Traceback (most recent call last):\n" + Frame("training_step") + kTorchOom +
                    "retrying with a smaller batch\n" + Steps(3);
  Report report = Scan(log);
  ASSERT_EQ(report.incidents.size(), 1u);
  EXPECT_EQ(report.incidents[0].phase.Name(), "warmup");
  EXPECT_NE(report.incidents[0].phase.evidence.find("in training_step"), std::string::npos);
}

// Once capture finished and the server is up, an OOM while serving is not a capture
// OOM, however close below the capture line it comes.
TEST_F(PhaseTest, APhaseIsOverWhenTheLogSaysSo) {
  const std::string capture =
      "INFO 08-19 07:51:12 model_runner.py:1024] Capturing the model for CUDA graphs.\n";
  Report during = Scan(capture + kTorchOom);
  ASSERT_EQ(during.incidents.size(), 1u);
  EXPECT_EQ(during.incidents[0].phase.Name(), "graph_capture");
  for (const char* over : {"INFO 08-19 07:51:38 model_runner.py:1225] Graph capturing finished in 26 secs.\n",
                           "INFO:     Application startup complete.\n",
                           "INFO 08-19 07:52:01 metrics.py:455] Avg prompt throughput: 0.0 tokens/s, Avg "
                           "generation throughput: 31.2 tokens/s, Running: 1 reqs\n"}) {
    Report serving = Scan(capture + over + kTorchOom);
    ASSERT_EQ(serving.incidents.size(), 1u) << over;
    EXPECT_EQ(serving.incidents[0].phase.Name(), "unknown") << over;
    EXPECT_FALSE(AdviceSays(serving.incidents[0], "--enforce-eager")) << over;
  }
}

TEST_F(PhaseTest, ThePhaseGoesThroughJsonAndBack) {
  std::string log = Steps(2) + "Capturing CUDA graph shapes:  45%|####5     | 30/67\n" + kTorchOom;
  Report report = Scan(log);
  ASSERT_EQ(report.incidents.size(), 1u);
  EXPECT_EQ(report.incidents[0].phase.Name(), "graph_capture");
  EXPECT_TRUE(AdviceSays(report.incidents[0], "--enforce-eager"));
  Report back = ThroughJson(report);
  ASSERT_EQ(back.incidents.size(), 1u);
  EXPECT_EQ(back.incidents[0].phase.Name(), "graph_capture");
  EXPECT_EQ(back.incidents[0].phase.where.line, report.incidents[0].phase.where.line);
  EXPECT_EQ(back.incidents[0].phase.evidence, report.incidents[0].phase.evidence);
}

}  // namespace
}  // namespace oomlens
