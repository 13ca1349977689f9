#include "oomlens/render.h"

#include <gtest/gtest.h>

#include <sstream>

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

TEST(HtmlEscape, EscapesEveryMetaCharacter) {
  EXPECT_EQ(HtmlEscape("<a href=\"x\" onclick='y'>&</a>"),
            "&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;");
  EXPECT_EQ(HtmlEscape(std::string("a\x1b[2Jb\0c", 8)), "a&#xFFFD;[2Jb&#xFFFD;c");
}

// XSS payloads in every field a log can fill must come out inert.
TEST(RenderHtml, LogTextCannotInjectMarkup) {
  const std::string kPayload = "<script>alert(1)</script><img src=x onerror=alert(2)>\"'";
  Report r;
  r.inputs.push_back({kPayload + ".log", 3, 100, true});
  Incident i;
  i.kind = "tpu_compile_hbm";
  i.code = "E1000";
  i.title = "t";
  i.first = Location{kPayload + ".log", 2};
  i.hosts = {kPayload};
  i.partitions = {1, 2};
  for (const char* name : {"program", "shape", "label"}) {
    FactValue v;
    v.type = FactType::kText;
    v.text = kPayload;
    i.facts[name] = v;
  }
  Allocation a;
  for (const char* name : {"shape", "operator", "label", "owner"}) {
    FactValue v;
    v.type = FactType::kText;
    v.text = kPayload;
    a.fields[name] = v;
  }
  i.allocations.push_back(a);
  i.allocation_groups.push_back(AllocationGroup{AllocationGroup::By::kOwner, kPayload, 1, 1024, 1.0});
  i.series.name = kPayload;
  i.series.key = kPayload;
  i.series.figures = 2;
  i.series.points = {{1, 100}, {2, 200}};
  i.diagnosis.best.cause = kPayload;
  i.diagnosis.summary = kPayload;
  i.diagnosis.evidence = {kPayload};
  i.diagnosis.advice = {kPayload};
  i.diagnosis.docs = {"javascript:alert(3)'><script>"};
  i.excerpt = {kPayload};
  r.incidents.push_back(i);
  std::ostringstream out;
  RenderHtml(r, out);
  const std::string html = out.str();
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("href='javascript"), std::string::npos);  // only http(s) links
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&quot;&#39;"),
            std::string::npos);
}

}  // namespace
}  // namespace oomlens
