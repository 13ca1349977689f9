// Fuzzes reading a JSON report back (merge, diff and the fleet take reports from
// other machines) and what follows: merging it with itself, the fleet summary and
// every renderer. Never crashes; what oomlens writes it reads back.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "oomlens/fleet.h"
#include "oomlens/merge.h"
#include "oomlens/render.h"
#include "oomlens/rules.h"
#include "tests/fuzz/builtin_rules.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  oomlens::Report report;
  std::string error;
  if (!oomlens::ParseJsonReport(text, &report, &error)) return 0;
  std::vector<oomlens::Report> parts = {report, report};
  oomlens::Report merged = oomlens::MergeReports(std::move(parts), oomlens::BuiltinRules(), "");
  std::ostringstream json;
  oomlens::RenderJson(merged, json);
  oomlens::Report again;
  if (!oomlens::ParseJsonReport(json.str(), &again, &error)) std::abort();  // what it writes, it reads
  oomlens::FleetReport fleet = oomlens::SummarizeFleet(merged);
  for (oomlens::Format format :
       {oomlens::Format::kText, oomlens::Format::kJson, oomlens::Format::kMarkdown, oomlens::Format::kHtml}) {
    std::ostringstream out;
    oomlens::RenderFleet(fleet, format, out);
  }
  std::ostringstream text_report;
  oomlens::RenderReport(merged, oomlens::Format::kText, {}, text_report);
  return 0;
}
