// Program eviction needs history: the program compiled and the job ran steps
// before the load failed. Without that history it is never the cause.
#include "core/analyze/history.h"

#include <gtest/gtest.h>

#include <string>

#include "oomlens/scanner.h"
#include "tests/core/scan_fixture.h"

namespace oomlens {
namespace {

const char kCompile[] =
    "I1130 11:00:00.000000 77 pxla.py:1912] Compiling train_step with global shapes and types [].\n";
const char kStep[] = "completed step: 1, seconds: 1.204, loss: 2.900\n";
const char kLoad[] =
    "RESOURCE_EXHAUSTED: Error loading program 'jit_train_step': Attempting to reserve 6.00G at the bottom "
    "of "
    "memory. That was not possible. There are 4.10G free, 0B reserved, and 4.10G reservable.\n";
const char kGrowth[] =
    "\tUsing (GB) 10.00 / 31.25 (0%) on TPU_0(x)\n\tUsing (GB) 14.00 / 31.25 (0%) on TPU_0(x)\n"
    "\tUsing (GB) 18.00 / 31.25 (0%) on TPU_0(x)\n";

class HistoryTest : public ScanFixture {
 protected:
  std::string Cause(const std::string& text) {
    Report report = Scan(text);
    return report.incidents.empty() ? "" : report.incidents[0].diagnosis.best.cause;
  }
};

TEST(NormalizeProgram, JaxSpellingsOfOneProgramAgree) {
  EXPECT_EQ(NormalizeProgram("jit(train_step)"), "train_step");
  EXPECT_EQ(NormalizeProgram("jit_train_step"), "train_step");
  EXPECT_EQ(NormalizeProgram("pjit_train_step"), "train_step");
  EXPECT_EQ(NormalizeProgram("train_step"), "train_step");
  EXPECT_EQ(NormalizeProgram("jit_"), "jit_");
}

TEST_F(HistoryTest, CompiledRanAndGrewIsEviction) {
  EXPECT_EQ(Cause(std::string(kCompile) + kStep + kGrowth + kLoad), "program_eviction");
}

TEST_F(HistoryTest, CompiledAndRanWithoutFiguresIsOnlyAnAlternative) {
  Report report = Scan(std::string(kCompile) + kStep + kLoad);
  ASSERT_EQ(report.incidents.size(), 1u);
  EXPECT_EQ(report.incidents[0].diagnosis.best.cause, "oversize");
  ASSERT_FALSE(report.incidents[0].diagnosis.alternatives.empty());
  EXPECT_EQ(report.incidents[0].diagnosis.alternatives[0].cause, "program_eviction");
}

TEST_F(HistoryTest, FirstLoadFailingIsNoEviction) {
  EXPECT_EQ(Cause(std::string(kCompile) + kGrowth + kLoad), "oversize");  // compiled, never ran a step
}

TEST_F(HistoryTest, AnotherProgramsHistoryDoesNotCount) {
  std::string other = "Compiling eval_step with global shapes and types [].\n";
  EXPECT_EQ(Cause(other + kStep + kGrowth + kLoad), "oversize");
}

TEST_F(HistoryTest, StepsAfterTheFailureDoNotCount) {
  EXPECT_EQ(Cause(std::string(kCompile) + kGrowth + kLoad + kStep), "oversize");
}

}  // namespace
}  // namespace oomlens
