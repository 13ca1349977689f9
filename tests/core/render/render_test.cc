#include "oomlens/render.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/model/ascii.h"
#include "core/render/html_frame.h"
#include "tests/core/scan_fixture.h"

namespace oomlens {
namespace {

TEST(FormatIdSet, Ranges) {
  EXPECT_EQ(FormatIdSet({}), "");
  EXPECT_EQ(FormatIdSet({34}), "34");
  EXPECT_EQ(FormatIdSet({0, 1, 2, 3}), "0-3 (4)");
  EXPECT_EQ(FormatIdSet({0, 2, 4, 5, 6}), "0,2,4-6 (5)");
}

TEST(NaturalLess, CountsRunsOfDigitsAsNumbers) {
  std::vector<std::string> names = {"host-10", "host-9",   "host-09", "host-1a",
                                    "host-",   "host-100", "a",       "host-9-b"};
  std::sort(names.begin(), names.end(), [](const auto& a, const auto& b) { return NaturalLess(a, b); });
  EXPECT_EQ(names, (std::vector<std::string>{"a", "host-", "host-1a", "host-9", "host-9-b", "host-09",
                                             "host-10", "host-100"}));
  EXPECT_FALSE(NaturalLess("x", "x"));
  EXPECT_FALSE(NaturalLess("x007", "x007"));
  EXPECT_TRUE(NaturalLess("x99999999999999999999999", "x100000000000000000000000"));  // past int64
}

TEST(ScopedStyle, PutsEveryRuleUnderTheRoot) {
  EXPECT_EQ(ScopedStyle("body{color:#222}h1{font-size:1.4em}td, th{border:1px solid #ccc}.muted{color:#666}"),
            ".oomlens-report{color:#222}.oomlens-report h1{font-size:1.4em}"
            ".oomlens-report td,.oomlens-report th{border:1px solid #ccc}.oomlens-report .muted{color:#666}");
}

// A notebook's output is one element whose styles apply inside it only (newcomer
// review, issue 32 item 3); the browser test puts it into a page as Jupyter does.
TEST(RenderHtmlFragment, IsOneElementWithItsStylesScopedToIt) {
  Report report;
  report.inputs.push_back(InputSummary{"a.log", 1, 10, true, ""});
  std::ostringstream fragment, page;
  RenderHtmlFragment(report, fragment);
  RenderHtml(report, page);
  std::string f = fragment.str();
  EXPECT_EQ(f.rfind("<div class='oomlens-report'><style>", 0), 0u) << f;
  EXPECT_EQ(f.substr(f.size() - 7), "</div>\n");
  for (const char* whole_page : {"<html", "<head", "<body", "<title", "<meta", "<!DOCTYPE"})
    EXPECT_EQ(f.find(whole_page), std::string::npos) << whole_page;
  std::string style = f.substr(f.find("<style>") + 7, f.find("</style>") - f.find("<style>") - 7);
  size_t rules = 0;
  for (size_t at = 0; at < style.size(); at = style.find('}', at) + 1, ++rules) {
    std::string selectors = style.substr(at, style.find('{', at) - at);
    std::istringstream each(selectors);
    for (std::string s; std::getline(each, s, ',');) EXPECT_EQ(s.rfind(".oomlens-report", 0), 0u) << s;
  }
  EXPECT_GT(rules, 5u);
  EXPECT_NE(page.str().find(f), std::string::npos) << "the page holds the same element";
}

class MemoryPicture : public ScanFixture {};

// The picture stacks what holds the GPU with each value, and sets the request beside
// what is free (newcomer review, issue 32 item 5).
TEST_F(MemoryPicture, StacksWhatHoldsTheDeviceWithItsValues) {
  Report report = Scan(
      "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 22.00 MiB. GPU 0 has a total "
      "capacity "
      "of 23.65 GiB of which 11.06 MiB is free. Including non-PyTorch memory, this process has 23.60 GiB "
      "memory "
      "in use. Of the allocated memory 22.90 GiB is allocated by PyTorch, and 194.87 MiB is reserved by "
      "PyTorch "
      "but unallocated.\n");
  std::ostringstream html;
  RenderHtml(report, html);
  std::string page = html.str();
  std::string svg = page.substr(page.find("<svg"), page.find("</svg>") - page.find("<svg"));
  size_t at = 0;
  for (const char* part : {"device memory 23.65G", "allocated 22.90G (97%)",
                           "reserved, not allocated 194.87M", "this process, outside the allocator",
                           "other processes", "free 11.06M (<0.1%)", "requested</text>", "22.00M"}) {
    size_t found = svg.find(part, at);
    EXPECT_NE(found, std::string::npos) << part << " (in order) in " << svg;
    if (found != std::string::npos) at = found;
  }
  // a message without the device's size keeps the plain bars
  Report seed = Scan(
      "RESOURCE_EXHAUSTED: Error loading program 'jit_p': Attempting to reserve 29.49G at the bottom of "
      "memory. "
      "That was not possible. There are 147.64M free, 0B reserved, and 147.64M reservable.\n");
  std::ostringstream plain;
  RenderHtml(seed, plain);
  EXPECT_EQ(plain.str().find("device memory"), std::string::npos);
  EXPECT_NE(plain.str().find(">requested</text>"), std::string::npos);
}

TEST(FormatNameSet, FoldsNumberedNames) {
  std::set<std::string> workers;
  for (int i = 0; i < 32; ++i) workers.insert("worker-" + std::to_string(i));
  EXPECT_EQ(FormatNameSet(workers), "worker-0..31 (32)");
  EXPECT_EQ(FormatNameSet({"a", "b"}), "a, b (2)");
  EXPECT_EQ(FormatNameSet({"h1", "h3", "x", "y", "z"}), "h1, h3, x, y +1 more (5)");
  EXPECT_EQ(FormatNameSet({"only"}), "only");
  // Pod names end in a random suffix: no range, but the order people count in
  // (newcomer review: "workers-0-14, 0-23, 0-31, 0-0 +28 more").
  std::set<std::string> pods;
  for (int k : {14, 23, 31, 0, 2, 10}) pods.insert("train-workers-0-" + std::to_string(k) + "-x7k2p");
  EXPECT_EQ(FormatNameSet(pods),
            "train-workers-0-0-x7k2p, train-workers-0-2-x7k2p, train-workers-0-10-x7k2p, "
            "train-workers-0-14-x7k2p +2 more (6)");
}

TEST(RenderText, NoOomVerdict) {
  Report r;
  r.inputs.push_back({"a.log", 12, 100, true, ""});
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
  r.inputs.push_back({kPayload + ".log", 3, 100, true, ""});
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

std::string RenderedAsJson(const Report& report) {
  std::ostringstream out;
  RenderJson(report, out);
  return out.str();
}

TEST(Printable, BidiControlsAreShownAsQuestionMarks) {
  // U+202E (right-to-left override), U+2066 (left-to-right isolate), U+061C (Arabic letter mark)
  EXPECT_EQ(Printable("jit_\xE2\x80\xAEpets"), "jit_?pets");
  EXPECT_EQ(Printable("a\xE2\x81\xA6"
                      "b\xD8\x9C"
                      "c"),
            "a?b?c");
  EXPECT_EQ(Printable("caf\xC3\xA9 \xE2\x80\x94 ok"),
            "caf\xC3\xA9 \xE2\x80\x94 ok");  // é and an em dash stay
}

// A report of schema version 1 whose incidents are those given (a JSON array's
// elements), with inputs a.log and b.log, the inputs written before or after them.
std::string ReportWith(const std::string& incidents, bool inputs_first = true) {
  std::string inputs =
      R"("inputs":[{"name":"a.log","lines":9,"bytes":90,"ok":true},{"name":"b.log","lines":9,"bytes":90,"ok":true}])";
  std::string list = R"("incidents":[)" + incidents + "]";
  return "{\"schema_version\":1," + (inputs_first ? inputs + "," + list : list + "," + inputs) + "}";
}

std::string BufferIncident(const std::string& input, int line, int64_t requested) {
  return R"({"kind":"tpu_buffer_alloc","occurrences":1,"first":{"input":")" + input + R"(","line":)" +
         std::to_string(line) + R"(},"facts":{"requested_bytes":)" + std::to_string(requested) +
         R"(,"free_bytes":1000}})";
}

TEST(ParseJsonReport, ALoneSurrogateEscapeIsReadAsAReplacement) {
  Report report;
  std::string error;
  std::string incident =
      R"({"kind":"k","title":"x\ud800y \ud83d\ude00 \\ud800","first":{"input":"a.log","line":1}})";
  ASSERT_TRUE(ParseJsonReport(ReportWith(incident), &report, &error)) << error;
  ASSERT_EQ(report.incidents.size(), 1u);
  // the half pair is U+FFFD, a whole pair its character, an escaped backslash no escape
  EXPECT_EQ(report.incidents[0].title, "x\xEF\xBF\xBDy \xF0\x9F\x98\x80 \\ud800");
}

TEST(ParseJsonReport, IncidentsOfOneFailureAreFoldedAsTheyAreRead) {
  Report report;
  std::string error;
  std::string incidents = BufferIncident("b.log", 7, 2000) + "," + BufferIncident("a.log", 5, 2000) + "," +
                          BufferIncident("b.log", 3, 2000) + "," + BufferIncident("a.log", 4, 3000);
  ASSERT_TRUE(ParseJsonReport(ReportWith(incidents), &report, &error)) << error;
  ASSERT_EQ(report.incidents.size(), 2u);
  const Incident& folded = report.incidents[0];
  EXPECT_EQ(folded.occurrences, 3u);
  EXPECT_EQ(folded.first.input, "a.log");  // the one seen first, though read second
  EXPECT_EQ(folded.first.line, 5u);
  EXPECT_EQ(folded.first_input_index, 0);
  EXPECT_EQ(folded.seen.inputs, (std::vector<int>{0, 1}));
  EXPECT_EQ(report.incidents[1].occurrences, 1u);
}

TEST(ParseJsonReport, PastTheDistinctIncidentsAReportKeepsTheRestAreCounted) {
  std::string incidents;
  const int kRead = 10005;  // kMaxIncidents and five more, each of its own size
  for (int k = 0; k < kRead; ++k)
    incidents += (k ? "," : "") + BufferIncident(k < 10003 ? "a.log" : "b.log", k + 1, 2000 + k);
  Report report;
  std::string error;
  ASSERT_TRUE(ParseJsonReport(ReportWith(incidents), &report, &error)) << error;
  EXPECT_EQ(report.incidents.size(), 10000u);
  EXPECT_EQ(report.not_kept.events, 5u);
  EXPECT_EQ(report.not_kept.kinds.at("tpu_buffer_alloc"), 5u);
  EXPECT_EQ(report.not_kept.inputs, (std::set<int>{0, 1}));
  ASSERT_EQ(report.problems.size(), 1u);
  EXPECT_EQ(report.problems[0].where, "a.log:10001");
  EXPECT_NE(report.problems[0].message.find("5 events of further incidents were counted but not kept"),
            std::string::npos);
}

TEST(ParseJsonReport, IncidentsWrittenBeforeTheInputsArePlacedByThem) {
  // jq -S and Python's sort_keys put "incidents" before "inputs"
  std::string incidents = BufferIncident("b.log", 2, 2000) + "," + BufferIncident("b.log", 1, 2000);
  Report sorted, written;
  std::string error;
  ASSERT_TRUE(ParseJsonReport(ReportWith(incidents, /*inputs_first=*/false), &sorted, &error)) << error;
  ASSERT_TRUE(ParseJsonReport(ReportWith(incidents), &written, &error)) << error;
  ASSERT_EQ(sorted.incidents.size(), 1u);
  EXPECT_EQ(sorted.inputs.size(), 2u);
  EXPECT_EQ(sorted.incidents[0].first_input_index, 1);
  EXPECT_EQ(sorted.incidents[0].first.line, 1u);
  EXPECT_EQ(sorted.incidents[0].occurrences, 2u);
  EXPECT_EQ(RenderedAsJson(sorted), RenderedAsJson(written));
}

TEST(ParseJsonReport, AStringLongerThanAnyLineIsCutAtACharactersStart) {
  std::string title = "a";
  for (int k = 0; k < (5 << 20) / 2; ++k) title += "\xC3\xA9";  // é, two bytes each: 5 MiB
  std::string incident = R"({"kind":"k","title":")" + title + R"(","first":{"input":"a.log","line":1}})";
  Report report;
  std::string error;
  ASSERT_TRUE(ParseJsonReport(ReportWith(incident), &report, &error)) << error;
  ASSERT_EQ(report.incidents.size(), 1u);
  const std::string& read = report.incidents[0].title;
  EXPECT_EQ(read.size(), (4u << 20) - 1);  // 4 MiB would split an é
  EXPECT_EQ(read.substr(read.size() - 2), "\xC3\xA9");
  ASSERT_EQ(report.problems.size(), 1u);
  EXPECT_EQ(report.problems[0].where, "the report's /incidents/0");
  EXPECT_NE(report.problems[0].message.find("1 string longer than 4.00M"), std::string::npos)
      << report.problems[0].message;
}

TEST(ParseJsonReport, AReportWithNoInputsStillHasItsIncidents) {
  Report report;
  std::string error;
  ASSERT_TRUE(ParseJsonReport(
      R"({"schema_version":1,"incidents":[)" + BufferIncident("a.log", 1, 2000) + "]}", &report, &error))
      << error;
  EXPECT_EQ(report.incidents.size(), 1u);
  EXPECT_TRUE(report.inputs.empty());
}

}  // namespace
}  // namespace oomlens
