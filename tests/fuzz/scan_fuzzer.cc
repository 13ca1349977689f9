// Fuzzes the whole pipeline: arbitrary bytes as a log, through recognition,
// grouping, rules and both renderers. Checks that the JSON is valid UTF-8 JSON.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>

#include "oomlens/render.h"
#include "oomlens/rules.h"
#include "oomlens/scanner.h"

namespace {

const oomlens::RuleSet& Rules() {
  static oomlens::RuleSet* rules = [] {
    auto* r = new oomlens::RuleSet();
    std::vector<oomlens::Problem> problems;
    if (!r->LoadBuiltin(&problems)) std::abort();
    return r;
  }();
  return *rules;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1 << 20)) return 0;
  oomlens::ScanOptions options;
  options.max_line_bytes = 4096;  // exercise truncation on small inputs too
  oomlens::Scanner scanner(Rules(), options);
  scanner.ScanText(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
  oomlens::Report report = scanner.Finish();
  std::ostringstream text, json;
  oomlens::RenderText(report, {}, text);
  oomlens::RenderJson(report, json);
  if (!nlohmann::json::accept(json.str())) std::abort();  // the JSON must always parse
  return 0;
}
