// The C interface the static page calls (src/web/page/app.js): one scan at a
// time, begun, fed one text per input, and finished into a rendered report. The
// page is single-threaded, so state lives here between calls; every string
// returned stays valid until the next call.
#include <emscripten/emscripten.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "oomlens/render.h"
#include "oomlens/rules.h"
#include "oomlens/scanner.h"
#include "oomlens/version.h"

namespace {

std::string g_result;

const oomlens::RuleSet* BuiltinRules(std::string* error) {
  static oomlens::RuleSet rules;
  static std::string load_error;
  static bool loaded = [] {
    std::vector<oomlens::Problem> problems;
    bool ok = rules.LoadBuiltin(&problems);
    if (!ok)
      load_error = problems.empty() ? "built-in rules did not load" : oomlens::FormatProblem(problems[0]);
    return ok;
  }();
  *error = load_error;
  return loaded ? &rules : nullptr;
}

std::unique_ptr<oomlens::Scanner> g_scanner;

}  // namespace

extern "C" {

/// Starts a scan; chip may be "" (unknown). Returns "" or why it cannot start.
EMSCRIPTEN_KEEPALIVE const char* oomlens_begin(const char* chip) {
  const oomlens::RuleSet* rules = BuiltinRules(&g_result);
  if (!rules) return g_result.c_str();
  oomlens::ScanOptions options;
  options.chip = chip ? chip : "";
  g_scanner = std::make_unique<oomlens::Scanner>(*rules, options);
  g_result.clear();
  return g_result.c_str();
}

/// Scans one input's text (UTF-8, len bytes) under the name the report shows.
EMSCRIPTEN_KEEPALIVE void oomlens_add(const char* name, const char* text, size_t len) {
  if (g_scanner) g_scanner->ScanText(std::string_view(text, len), name ? name : "<paste>");
}

/// Ends the scan and renders it as format ("html", "json", "text", "markdown" ...).
/// Returns the report, or "" when no scan was begun or the format is unknown.
EMSCRIPTEN_KEEPALIVE const char* oomlens_finish(const char* format) {
  g_result.clear();
  auto parsed = oomlens::ParseFormat(format ? format : "");
  if (!g_scanner || !parsed) return g_result.c_str();
  oomlens::Report report = g_scanner->Finish();
  g_scanner.reset();
  std::ostringstream out;
  oomlens::RenderReport(report, *parsed, oomlens::RenderOptions{}, out);
  g_result = out.str();
  return g_result.c_str();
}

EMSCRIPTEN_KEEPALIVE const char* oomlens_version() {
  g_result = oomlens::Version();
  return g_result.c_str();
}

}  // extern "C"
