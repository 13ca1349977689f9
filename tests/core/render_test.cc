#include "oomlens/render.h"

#include <gtest/gtest.h>

namespace oomlens {
namespace {

TEST(FormatIdSet, Ranges) {
  EXPECT_EQ(FormatIdSet({}), "");
  EXPECT_EQ(FormatIdSet({34}), "34");
  EXPECT_EQ(FormatIdSet({0, 1, 2, 3}), "0-3 (4)");
  EXPECT_EQ(FormatIdSet({0, 2, 4, 5, 6}), "0,2,4-6 (5)");
}

TEST(FormatNameSet, FoldsNumberedNames) {
  std::set<std::string> workers;
  for (int i = 0; i < 32; ++i) workers.insert("worker-" + std::to_string(i));
  EXPECT_EQ(FormatNameSet(workers), "worker-0..31 (32)");
  EXPECT_EQ(FormatNameSet({"a", "b"}), "a, b (2)");
  EXPECT_EQ(FormatNameSet({"h1", "h3", "x", "y", "z"}), "h1, h3, x, y +1 more (5)");
  EXPECT_EQ(FormatNameSet({"only"}), "only");
}

TEST(RenderText, NoOomVerdict) {
  Report r;
  r.inputs.push_back({"a.log", 12, 100, true});
  std::ostringstream out;
  RenderText(r, {}, out);
  EXPECT_EQ(out.str(), "oomlens: no OOM found in a.log (12 lines)\n");
}

TEST(RenderText, ControlBytesFromTheLogCannotDriveTheTerminal) {
  Report r;
  Incident i;
  i.kind = "tpu_program_load";
  i.title = "t";
  i.diagnosis.summary = "evil \x1b]0;pwned\x07 summary";
  i.excerpt = {"line with \x1b[2J clear"};
  r.incidents.push_back(i);
  std::ostringstream out;
  RenderText(r, {}, out);
  EXPECT_EQ(out.str().find('\x1b'), std::string::npos);
}

}  // namespace
}  // namespace oomlens
