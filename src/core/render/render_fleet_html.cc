// A fleet report as one self-contained HTML page: the totals as inline SVG bar
// charts, then the failures. No scripts, no external resources; every string from
// a log is escaped.
#include <algorithm>
#include <sstream>

#include "core/render/fleet_labels.h"
#include "core/render/html_frame.h"
#include "oomlens/fleet.h"
#include "oomlens/render.h"
#include "oomlens/size.h"
#include "oomlens/version.h"

namespace oomlens {
namespace {

const char kStyle[] =
    "body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:66em;color:#222}"
    "h1,h2{color:inherit}h1{font-size:1.4em}h2{font-size:1.1em;margin-top:2em}.cause{color:#b00;font-weight:"
    "bold}"
    "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left;"
    "vertical-align:top}td.n{text-align:right}.muted{color:#666}code{font-size:12px}"
    ".charts{display:flex;flex-wrap:wrap;gap:1em 3em}";

std::string Escaped(const std::string& text) { return HtmlEscape(Printable(text)); }

// Horizontal bars: one per total, its length the jobs it counts (messages for days).
std::string BarChart(const char* title, const std::vector<FleetTotal>& totals, bool by_jobs) {
  if (totals.empty()) return "";
  const size_t shown = std::min<size_t>(totals.size(), 12);
  uint64_t top = 1;
  for (size_t k = 0; k < shown; ++k) top = std::max(top, by_jobs ? totals[k].jobs : totals[k].occurrences);
  std::ostringstream svg;
  svg << "<div><h2>" << title << "</h2><svg xmlns='http://www.w3.org/2000/svg' width='460' height='"
      << shown * 20 + 4 << "' role='img' aria-label='" << title << "'>";
  for (size_t k = 0; k < shown; ++k) {
    const FleetTotal& t = totals[k];
    uint64_t value = by_jobs ? t.jobs : t.occurrences;
    double width = std::max(1.0, 220.0 * static_cast<double>(value) / static_cast<double>(top));
    size_t y = k * 20 + 2;
    svg << "<text x='0' y='" << y + 13 << "' font-size='12'>" << Escaped(t.key.substr(0, 26)) << "</text>"
        << "<rect x='170' y='" << y << "' width='" << width << "' height='16' fill='#d55'/>"
        << "<text x='" << 176 + width << "' y='" << y + 13 << "' font-size='12'>" << GroupedCount(value)
        << (by_jobs ? " jobs" : "") << "</text>";
  }
  svg << "</svg>";
  if (totals.size() > shown) svg << "<p class='muted'>and " << totals.size() - shown << " more</p>";
  svg << "</div>";
  return svg.str();
}

// Timed messages per day, as columns in time order.
std::string DayChart(const std::vector<FleetTotal>& days) {
  if (days.empty()) return "";
  uint64_t top = 1;
  for (const auto& d : days) top = std::max(top, d.occurrences);
  const double step = std::max(2.0, std::min(24.0, 640.0 / static_cast<double>(days.size())));
  std::ostringstream svg;
  svg << "<h2>Messages by day</h2><svg xmlns='http://www.w3.org/2000/svg' width='"
      << 40 + step * static_cast<double>(days.size())
      << "' height='150' role='img' aria-label='messages by day'>";
  for (size_t k = 0; k < days.size(); ++k) {
    double height =
        std::max(1.0, 110.0 * static_cast<double>(days[k].occurrences) / static_cast<double>(top));
    svg << "<rect x='" << 4 + step * static_cast<double>(k) << "' y='" << 120 - height << "' width='"
        << step - 1 << "' height='" << height << "' fill='#58a'><title>" << Escaped(days[k].key) << ": "
        << GroupedCount(days[k].occurrences) << "</title></rect>";
  }
  svg << "<text x='4' y='140' font-size='11'>" << Escaped(days.front().key) << "</text><text x='"
      << std::max(120.0, step * static_cast<double>(days.size()) - 60) << "' y='140' font-size='11'>"
      << Escaped(days.back().key) << "</text></svg>";
  return svg.str();
}

void FailureRow(const FleetFailure& f, size_t number, std::ostream& out) {
  out << "<tr><td class='n'>" << number << "</td><td class='n'>" << GroupedCount(f.jobs)
      << "</td><td class='n'>" << GroupedCount(f.occurrences) << "</td><td><span class='cause'>"
      << Escaped(f.cause) << "</span><br>" << Escaped(f.kind + (f.code.empty() ? "" : " " + f.code))
      << (f.program.empty() ? "" : "<br>") << Escaped(f.program) << "</td><td><code>" << Escaped(f.message)
      << "</code><br>" << Escaped(FleetFigures(f)) << "<br><span class='muted'>" << Escaped(f.summary)
      << "</span><br><span class='muted'>jobs: " << Escaped(FleetJobs(f, FleetFailure::kMaxJobsNamed))
      << "</span></td><td>" << Escaped(FleetWhen(f)) << "</td></tr>\n";
}

}  // namespace

namespace {

void RenderFleetHtmlIn(bool fragment, const FleetReport& fleet, std::ostream& out) {
  BeginHtml(fragment, "oomlens fleet: " + Escaped(FleetHeadline(fleet)), kStyle, "", out);
  out << "<h1>oomlens fleet</h1>\n<p>" << Escaped(FleetHeadline(fleet)) << "</p>\n"
      << "<div class='charts'>" << BarChart("By cause", fleet.by_cause, true)
      << BarChart("By kind", fleet.by_kind, true) << BarChart("By chip", fleet.by_chip, true)
      << BarChart("Top programs", fleet.top_programs, true) << "</div>\n"
      << DayChart(fleet.by_day) << "\n";
  if (!fleet.failures.empty()) {
    out << "<h2>Failures, most jobs "
           "first</h2>\n<table><tr><th>#</th><th>jobs</th><th>messages</th><th>failure</th>"
        << "<th>message, figures, diagnosis</th><th>first .. last seen</th></tr>\n";
    for (size_t k = 0; k < fleet.failures.size(); ++k) FailureRow(fleet.failures[k], k + 1, out);
    out << "</table>\n";
  }
  if (!fleet.problems.empty()) out << "<h2>Problems</h2><ul>";
  for (const auto& p : fleet.problems) out << "<li>" << Escaped(FormatProblem(p)) << "</li>";
  if (!fleet.problems.empty()) out << "</ul>\n";
  out << "<p class='muted'>oomlens " << Version() << "</p>\n";
  EndHtml(fragment, out);
}

}  // namespace

void RenderFleetHtml(const FleetReport& fleet, std::ostream& out) { RenderFleetHtmlIn(false, fleet, out); }

void RenderFleetHtmlFragment(const FleetReport& fleet, std::ostream& out) {
  RenderFleetHtmlIn(true, fleet, out);
}

}  // namespace oomlens
