// Renderers: a Report (or a fleet summary, or a diff) in, text or JSON out. Deterministic: the same report
// always gives the same bytes (no timestamps, no absolute paths added).
#ifndef OOMLENS_RENDER_H_
#define OOMLENS_RENDER_H_

#include <cstdint>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "oomlens/diff.h"
#include "oomlens/fleet.h"
#include "oomlens/gate.h"
#include "oomlens/report.h"
#include "oomlens/rules.h"
#include "oomlens/version.h"

namespace oomlens {

/// The report formats. Every command, `serve` and the completions name them
/// through FormatNames() and ParseFormat(), so there is one list.
enum class Format { kText, kJson, kJsonl, kMarkdown, kGithub, kSarif, kGitlab, kHtml };

/// The formats' names in enum order: "text", "json", "jsonl", ...
const std::vector<std::string>& FormatNames();
/// The name of a format ("sarif").
const std::string& FormatName(Format format);
/// The format of that name, ignoring case ("SARIF" is kSarif); nullopt if unknown.
std::optional<Format> ParseFormat(std::string_view name);

/// When the text report is coloured: auto (a terminal without NO_COLOR), always, never.
enum class ColorMode { kAuto, kAlways, kNever };
const std::vector<std::string>& ColorModeNames();
std::optional<ColorMode> ParseColorMode(std::string_view name);

struct RenderOptions {
  bool color = false;            ///< text: ANSI colours
  size_t max_excerpt_lines = 8;  ///< text: log lines shown per incident
  size_t incidents_total = 0;    ///< before --max-incidents cut the list: the first line says both
  FailGate gate;                 ///< CI formats: an incident that fails it is an error, the others warnings
  bool headroom = false;         ///< text: the budget each input printed, and the headroom it leaves
};

/// Human-readable report: a one-line verdict, then one block per incident.
void RenderText(const Report& report, const RenderOptions& options, std::ostream& out);

/// JSON document, schema version 1 (docs/json-output.md). Always valid UTF-8.
void RenderJson(const Report& report, std::ostream& out);

/// Reads a report written by RenderJson (schema version 1) back. Returns false
/// and sets *error (what is wrong, and where in the document) otherwise.
bool ParseJsonReport(std::string_view text, Report* report, std::string* error);

/// JSON Lines: one incident per line (compact), for log pipelines and warehouses.
void RenderJsonl(const Report& report, std::ostream& out);

/// A Markdown report for $GITHUB_STEP_SUMMARY or merge-request comments: a table
/// of incidents, then evidence, advice and excerpts in collapsible sections.
/// Never longer than max_bytes (details are dropped first, then rows).
/// incidents_total: how many there were before --max-incidents cut the list.
void RenderMarkdown(const Report& report, std::ostream& out, size_t max_bytes = 1000 * 1000,
                    size_t incidents_total = 0);

/// GitHub Actions workflow commands: ::error for an incident that fails the gate,
/// ::warning for one that does not. At most 10 annotations (the runner's limit per
/// step): with more incidents the tenth summarises the rest.
void RenderGithub(const Report& report, const FailGate& gate, std::ostream& out);

/// SARIF 2.1.0: one result per incident, rule ids = cause rules; a result's level
/// is error when its incident fails the gate, else warning.
void RenderSarif(const Report& report, const FailGate& gate, std::ostream& out);

/// GitLab Code Quality JSON, with fingerprints stable across runs; severity
/// critical (major for a consequence) when the incident fails the gate, else minor (info).
void RenderGitlab(const Report& report, const FailGate& gate, std::ostream& out);

/// One self-contained HTML page (inline CSS and SVG, a strict CSP, no scripts),
/// good enough to attach to a bug report. Everything from the log is escaped.
void RenderHtml(const Report& report, std::ostream& out, size_t incidents_total = 0);
/// The same report as one <div class='oomlens-report'> whose styles apply inside it
/// only: a notebook's output (Jupyter puts it into its page as it is).
void RenderHtmlFragment(const Report& report, std::ostream& out);

/// Renders the report in the given format, with the options that apply to it.
void RenderReport(const Report& report, Format format, const RenderOptions& options, std::ostream& out);

/// Whether RenderFleet writes format itself: text, json, markdown or html.
bool FleetFormat(Format format);

/// Renders as text, json (fleet_schema_version 1), markdown or html (with charts);
/// the other formats render as json.
void RenderFleet(const FleetReport& fleet, Format format, std::ostream& out);
void RenderFleetHtml(const FleetReport& fleet, std::ostream& out);
/// The fleet page as one <div class='oomlens-report'> with scoped styles (a notebook's output).
void RenderFleetHtmlFragment(const FleetReport& fleet, std::ostream& out);

/// A comparison of two runs as text (what appeared, changed, vanished) or JSON.
void RenderDiffText(const ReportDiff& diff, std::ostream& out);
void RenderDiffJson(const ReportDiff& diff, std::ostream& out);

/// Text safe for a terminal or a CI log: C0 and C1 controls (ESC, CSI 0x9B,
/// U+009B ...), DEL and bidirectional controls (U+202E ...) become '?', invalid
/// UTF-8 bytes too; tabs and valid UTF-8
/// stay (and line breaks, when keep_line_breaks). The one filter for every field
/// that came from a log or a report.
std::string Printable(std::string_view text, bool keep_line_breaks = false);

/// Escapes text for HTML content and attributes (& < > " '), control bytes too.
std::string HtmlEscape(const std::string& text);

/// What an error code (E0101), a kind (pytorch_cuda) or a cause (fragmentation)
/// means, from the rules: what it is, where to read more and the causes told apart,
/// a sentence each; with detail also the numbers read and each rule's condition,
/// advice and docs. Returns false when rules know no such topic.
bool RenderExplanation(const RuleSet& rules, const std::string& topic, bool detail, std::ostream& out);

/// 1234567 -> "1,234,567"
std::string GroupedCount(uint64_t n);
/// "1 line", "8,779,321 lines".
std::string Counted(uint64_t n, const char* one, const char* many);

/// "0-255 (256)", "0,2,4-6 (5)", "34".
std::string FormatIdSet(const std::set<int64_t>& ids);

/// "worker-0..31 (32)", "a, b, c", "h1, h2, h3, h4 +6 more (10)".
std::string FormatNameSet(const std::set<std::string>& names);

}  // namespace oomlens

#endif  // OOMLENS_RENDER_H_
