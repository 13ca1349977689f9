// A self-contained HTML report: no external scripts, fonts or styles; every
// string from the log is escaped; an inline SVG bar shows each incident's memory.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "core/analyze/allocation_summary.h"
#include "core/model/fact_values.h"
#include "core/render/html_frame.h"
#include "core/render/segment_map.h"
#include "core/render/verdict.h"
#include "core/rules/template.h"
#include "oomlens/render.h"
#include "oomlens/size.h"

namespace oomlens {
namespace {

const char kStyle[] =
    "body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:60em;color:#222}"
    "h1,h2{color:inherit}h1{font-size:1.4em}h2{font-size:1.1em;margin-top:2em}.cause{color:#b00;font-weight:"
    "bold}"
    "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left}"
    "pre{background:#f6f6f6;padding:.6em;overflow-x:auto;white-space:pre-wrap}.muted{color:#666}";

const FactValue* Fact(const Incident& i, const char* name) {
  auto it = i.facts.find(name);
  return it == i.facts.end() ? nullptr : &it->second;
}

// A figure the log printed, else one oomlens derived from them (cached_unallocated_bytes).
const FactValue* Figure(const Incident& i, const char* name) {
  if (const FactValue* printed = Fact(i, name)) return printed;
  auto it = i.derived.find(name);
  return it == i.derived.end() ? nullptr : &it->second;
}

struct Segment {
  std::string label;
  int64_t bytes;
  const char* color;
};

// What holds the device, side by side, and what is left: this process's allocations,
// its allocator's reserved-but-unallocated cache, other processes, free. Empty when
// fewer than two of them are known or they add up to more than the device (figures
// that overlap cannot be stacked).
std::vector<Segment> DeviceSegments(const Incident& i, int64_t whole) {
  std::vector<Segment> parts;
  auto add = [&](const char* label, const FactValue* v, const char* color) {
    if (v && v->integer > 0) parts.push_back({label, v->integer, color});
  };
  const FactValue* held = Figure(i, "allocated_bytes");
  if (!held) held = Figure(i, "in_use_bytes");
  add(Figure(i, "allocated_bytes") ? "allocated" : "in use", held, "#a8a");
  add("reserved, not allocated", Figure(i, "cached_unallocated_bytes"), "#e9b96e");
  const FactValue* process = Figure(i, "process_used_bytes");  // the process's whole use (CUDA's count)
  int64_t own = 0;
  for (const auto& s : parts) AddSaturating(s.bytes, &own);  // figures from a crafted record never wrap
  if (process && process->integer > own && process->integer - own > process->integer / 200)
    parts.push_back({"this process, outside the allocator", process->integer - own, "#c9b3d6"});
  add("other processes", Figure(i, "other_use_bytes"), "#8ab");
  size_t held_parts = parts.size();
  add("free", Figure(i, "free_bytes"), "#7b7");
  int64_t sum = 0;
  for (const auto& s : parts) AddSaturating(s.bytes, &sum);
  if (held_parts == 0 || parts.size() < 2 || sum - whole > whole / 200) return {};
  if (whole - sum > whole / 200) parts.push_back({"not accounted for", whole - sum, "#ddd"});
  return parts;
}

// "97%", "0.8%", "<0.1%": as a rule's {x:pct} prints it.
std::string Percent(int64_t part, int64_t whole) {
  Value share;
  share.present = true;
  share.number = static_cast<double>(part) / static_cast<double>(whole);
  return FormatValue(share, "pct");
}

// The device as one stacked bar with a legend of values, then the request beside
// the largest free block (or what is free) on the same scale: the figures the
// diagnosis rests on (newcomer review, issue 32 item 5). Empty when it cannot be drawn.
std::string StackedPicture(const Incident& i) {
  const FactValue* whole = Figure(i, "capacity_bytes");
  if (!whole) whole = Figure(i, "limit_bytes");
  const FactValue* requested = Figure(i, "requested_bytes");
  if (!whole || whole->integer <= 0 || !requested) return "";
  std::vector<Segment> parts = DeviceSegments(i, whole->integer);
  if (parts.empty()) return "";
  const FactValue* room = Figure(i, "largest_free_bytes");
  if (!room) room = Figure(i, "largest_contiguous_bytes");
  const char* room_label = room ? "largest free block" : "free";
  if (!room) room = Figure(i, "free_bytes");
  const double width = 560, scale = static_cast<double>(std::max(whole->integer, requested->integer));
  auto w = [&](int64_t bytes) { return std::max(1.0, width * static_cast<double>(bytes) / scale); };
  int height = 40 + 18 * static_cast<int>(parts.size()) + 8 + 20 * (room ? 2 : 1);
  std::ostringstream svg;
  svg << "<svg xmlns='http://www.w3.org/2000/svg' width='720' height='" << height
      << "' role='img' aria-label='memory picture'><text x='0' y='13' font-size='12'>"
      << (Fact(i, "capacity_bytes") ? "device memory " : "limit ") << FormatSize(whole->integer) << "</text>";
  double x = 0;
  for (const auto& s : parts) {
    svg << "<rect x='" << x << "' y='18' width='" << w(s.bytes) << "' height='20' fill='" << s.color
        << "'><title>" << s.label << " " << FormatSize(s.bytes) << "</title></rect>";
    x += width * static_cast<double>(s.bytes) / scale;
  }
  int y = 44;
  for (const auto& s : parts) {
    svg << "<rect x='0' y='" << y << "' width='12' height='12' fill='" << s.color << "'/><text x='18' y='"
        << y + 10 << "' font-size='12'>" << s.label << " " << FormatSize(s.bytes) << " ("
        << Percent(s.bytes, whole->integer) << ")</text>";
    y += 18;
  }
  y += 8;
  auto bar = [&](const std::string& label, int64_t bytes, const char* color) {
    svg << "<text x='0' y='" << y + 13 << "' font-size='12'>" << label << "</text><rect x='130' y='" << y
        << "' width='" << w(bytes) * 0.75 << "' height='16' fill='" << color << "'/><text x='"
        << 136 + w(bytes) * 0.75 << "' y='" << y + 13 << "' font-size='12'>" << FormatSize(bytes)
        << "</text>";
    y += 20;
  };
  bar("requested", requested->integer, "#d55");
  if (room) bar(room_label, room->integer, "#cc7");
  svg << "</svg>";
  return svg.str();
}

// The memory picture: the stacked device when its parts are known, else the
// device (or limit) as a bar, what is used and free, and the request that failed
// drawn against it. Only printed (or derived) numbers are drawn.
std::string MemoryBar(const Incident& i) {
  if (std::string stacked = StackedPicture(i); !stacked.empty()) return stacked;
  const FactValue* whole = Fact(i, "capacity_bytes");
  if (!whole) whole = Fact(i, "limit_bytes");
  const FactValue* requested = Fact(i, "requested_bytes");
  if (!requested) requested = Fact(i, "used_bytes");
  const FactValue* free = Fact(i, "free_bytes");
  double scale = 0;
  for (const FactValue* v : {whole, requested, free, Fact(i, "used_bytes")})
    if (v) scale = std::max(scale, static_cast<double>(v->integer));
  if (scale <= 0 || (!whole && !free)) return "";
  const double width = 500;  // leaves room for the value label of the longest bar
  auto w = [&](const FactValue* v) {
    return v ? std::max(1.0, width * static_cast<double>(v->integer) / scale) : 0;
  };
  std::ostringstream svg;
  svg << "<svg xmlns='http://www.w3.org/2000/svg' width='720' height='106' role='img' aria-label='memory "
         "picture'>";
  int y = 4;
  auto bar = [&](const char* label, const FactValue* v, const char* color) {
    if (!v) return;
    svg << "<text x='0' y='" << y + 13 << "' font-size='12'>" << label << "</text><rect x='120' y='" << y
        << "' width='" << w(v) << "' height='16' fill='" << color << "'/><text x='" << 126 + w(v) << "' y='"
        << y + 13 << "' font-size='12'>" << FormatSize(v->integer) << "</text>";
    y += 20;
  };
  bar(Fact(i, "capacity_bytes") ? "device memory" : "limit", whole, "#9ab");
  if (Fact(i, "requested_bytes")) bar("in use", Fact(i, "used_bytes"), "#a8a");  // used is the need otherwise
  bar("free", free, "#7b7");
  bar(Fact(i, "requested_bytes") ? "requested" : "needed", requested, "#d55");
  const FactValue* largest = Fact(i, "largest_free_bytes");
  if (!largest) largest = Fact(i, "reservable_bytes");
  bar("largest free", largest, "#cc7");
  svg << "</svg>";
  return svg.str();
}

// The parts of a budget stacked in one bar, against what the engine may use (or
// the device) when the log printed it: where the memory was planned to go.
std::string BudgetBar(const std::vector<BudgetEntry>& budget) {
  static const char* const kColors[] = {"#79b", "#b97", "#9b7", "#a8c", "#cb6", "#7bb", "#c88", "#8c8"};
  double parts = 0, whole = 0;
  for (const auto& b : budget) {
    if (b.value.type != FactType::kSize || b.value.integer <= 0) continue;
    if (BudgetPart(budget, b.name)) parts += static_cast<double>(b.value.integer);
    if (b.name == "usable_bytes" || (b.name == "capacity_bytes" && whole == 0))
      whole = static_cast<double>(b.value.integer);
  }
  double scale = std::max(parts, whole);
  if (parts <= 0 || scale <= 0) return "";
  const double width = 600;
  std::ostringstream svg;
  svg << "<svg xmlns='http://www.w3.org/2000/svg' width='610' height='40' role='img' aria-label='budget'>";
  double x = 0;
  size_t color = 0;
  for (const auto& b : budget) {
    if (!BudgetPart(budget, b.name) || b.value.type != FactType::kSize || b.value.integer <= 0) continue;
    double w = width * static_cast<double>(b.value.integer) / scale;
    svg << "<rect x='" << x << "' y='0' width='" << w << "' height='18' fill='" << kColors[color++ % 8]
        << "'><title>" << HtmlEscape(FactLabel(b.name) + " " + FormatSize(b.value.integer))
        << "</title></rect>";
    if (w > 60)
      svg << "<text x='" << x + 3 << "' y='32' font-size='11'>" << HtmlEscape(FactLabel(b.name)) << "</text>";
    x += w;
  }
  if (whole > 0)
    svg << "<rect x='0' y='0' width='" << width * whole / scale
        << "' height='18' fill='none' stroke='#333'/>";
  svg << "</svg>";
  return svg.str();
}

// The top allocations as bars, the padding part of each shaded lighter.
std::string AllocationChart(const std::vector<const Allocation*>& shown) {
  double largest = 0;
  for (const Allocation* a : shown) {
    auto it = a->fields.find("size_bytes");
    if (it != a->fields.end()) largest = std::max(largest, it->second.number);
  }
  if (largest <= 0) return "";
  const double width = 420;
  std::ostringstream svg;
  size_t bars = shown.size();
  svg << "<svg xmlns='http://www.w3.org/2000/svg' width='720' height='" << 20 * bars + 8
      << "' role='img' aria-label='largest allocations'>";
  for (size_t k = 0; k < bars; ++k) {
    const Facts& f = shown[k]->fields;
    auto size = f.find("size_bytes");
    if (size == f.end()) continue;
    auto padding = f.find("padding_bytes");
    double total = width * size->second.number / largest;
    double padded = padding == f.end() ? 0 : std::min(total, width * padding->second.number / largest);
    auto shape = f.find("shape");
    std::string label = shape == f.end() ? "" : shape->second.text.substr(0, 40);
    int y = 4 + static_cast<int>(k) * 20;
    svg << "<rect x='0' y='" << y << "' width='" << std::max(1.0, total - padded)
        << "' height='16' fill='#58a'/>";
    if (padded > 0) {
      svg << "<rect x='" << total - padded << "' y='" << y << "' width='" << padded
          << "' height='16' fill='#c9dcee'><title>padding</title></rect>";
    }
    svg << "<text x='" << total + 6 << "' y='" << y + 13 << "' font-size='12'>"
        << FormatSize(size->second.integer) << " " << HtmlEscape(label) << "</text>";
  }
  svg << "</svg>";
  return svg.str();
}

// The memory series as a line over the figures, with the limit when printed; the
// axes say their values (bytes up the side, log lines along the bottom).
std::string SeriesChart(const MemorySeries& s) {
  if (s.points.empty()) return "";
  double top = static_cast<double>(std::max<int64_t>(s.limit_bytes, 1));
  for (const auto& p : s.points) top = std::max(top, static_cast<double>(p.bytes));
  const double left = 64, width = 540, height = 120;
  std::ostringstream svg;
  svg << "<svg xmlns='http://www.w3.org/2000/svg' width='720' height='" << height + 52
      << "' role='img' aria-label='memory series'>"
      << "<line x1='" << left << "' x2='" << left << "' y1='16' y2='" << 16 + height << "' stroke='#999'/>"
      << "<line x1='" << left << "' x2='" << left + width << "' y1='" << 16 + height << "' y2='"
      << 16 + height << "' stroke='#999'/><text x='0' y='20' font-size='12'>" << FormatComputedSize(top)
      << "</text><text x='0' y='" << 16 + height << "' font-size='12'>0</text>"
      << "<text x='" << left << "' y='" << height + 30 << "' font-size='12'>line " << s.points.front().line
      << "</text><text x='" << left + width << "' y='" << height + 30
      << "' font-size='12' text-anchor='end'>line " << s.points.back().line << "</text>"
      << "<polyline fill='none' stroke='#58a' stroke-width='2' points='";
  size_t n = s.points.size();
  for (size_t k = 0; k < n; ++k) {
    double x = left + (n == 1 ? 0 : width * static_cast<double>(k) / static_cast<double>(n - 1));
    double y = 16 + height * (1 - static_cast<double>(s.points[k].bytes) / top);
    svg << x << "," << y << " ";
  }
  svg << "'/>";
  if (s.limit_bytes > 0) {
    double y = 16 + height * (1 - static_cast<double>(s.limit_bytes) / top);
    svg << "<line x1='" << left << "' x2='" << left + width << "' y1='" << y << "' y2='" << y
        << "' stroke='#c33' stroke-dasharray='4'/>"
        << "<text x='" << left + width + 6 << "' y='" << y + 4 << "' font-size='12'>limit "
        << FormatSize(s.limit_bytes) << "</text>";
  }
  svg << "<text x='0' y='" << height + 48 << "' font-size='12'>" << HtmlEscape(s.name) << ": "
      << FormatSize(s.points.front().bytes) << " to " << FormatSize(s.points.back().bytes) << ", "
      << s.figures << " figures, lines " << s.first.line << "-" << s.last.line << "</text></svg>";
  return svg.str();
}

// The owners, labels and groups of identical buffers holding most of a listing.
std::string GroupsTable(const Incident& i) {
  if (i.allocation_groups.empty()) return "";
  std::ostringstream out;
  out << "<table><tr><th>by</th><th>what</th><th>count</th><th>bytes</th><th>share</th></tr>";
  for (const auto& g : i.allocation_groups) {
    char share[16];
    std::snprintf(share, sizeof share, "%.0f%%", 100 * g.share);
    out << "<tr><td>" << GroupByName(g.by) << "</td><td>" << HtmlEscape(g.key) << "</td><td>" << g.count
        << "</td><td>" << FormatSize(g.bytes) << "</td><td>" << share << "</td></tr>";
  }
  out << "</table>";
  return out.str();
}

void RenderIncidentHtml(const Incident& i, size_t number, bool any_went_on, std::ostream& out) {
  const Diagnosis& d = i.diagnosis;
  out << "<h2>[" << number << "] " << HtmlEscape((i.code.empty() ? "" : i.code + " ") + i.title)
      << " &middot; <span class='cause'>" << HtmlEscape(d.best.cause) << "</span></h2>\n<p>"
      << HtmlEscape(d.summary) << "</p>\n";
  if (i.consequence_of)
    out << "<p class='muted'>follows [" << i.consequence_of << "]: " << HtmlEscape(i.relation) << "</p>\n";
  if (std::string after = AftermathText(i.after, any_went_on); !after.empty())
    out << "<p class='" << (i.after.went_on ? "muted" : "cause") << "'>" << HtmlEscape(after) << "</p>\n";
  out << MemoryBar(i) << "\n<table>\n";
  out << "<tr><th>seen</th><td>" << i.occurrences << (i.occurrences == 1 ? " time" : " times")
      << ", first at " << HtmlEscape(LocationText(i.first)) << "</td></tr>\n";
  if (std::string phase = PhaseText(i.phase); !phase.empty())
    out << "<tr><th>phase</th><td>" << HtmlEscape(phase) << "</td></tr>\n";
  if (std::string budget = BudgetText(i.budget); !budget.empty())
    out << "<tr><th>budget</th><td>" << BudgetBar(i.budget) << "<br>" << HtmlEscape(budget) << "</td></tr>\n";
  for (const auto& formula : i.diagnosis.formulas)
    out << "<tr><th>formula</th><td class='muted'>" << HtmlEscape(formula) << "</td></tr>\n";
  for (const auto& record : i.records)
    out << "<tr><th>record</th><td>" << HtmlEscape(LocationText(record))
        << " (a record of the memory: its figures and listing)</td></tr>\n";
  if (!i.partitions.empty())
    out << "<tr><th>partitions</th><td>" << HtmlEscape(FormatIdSet(i.partitions)) << "</td></tr>\n";
  if (!i.hosts.empty())
    out << "<tr><th>hosts</th><td>" << HtmlEscape(FormatNameSet(i.hosts)) << "</td></tr>\n";
  for (const auto& [name, value] : i.facts) {
    std::string shown = value.type == FactType::kSize ? FormatSize(value.integer) : value.text;
    out << "<tr><th>" << HtmlEscape(name) << "</th><td>" << HtmlEscape(shown) << "</td></tr>\n";
  }
  out << "</table>\n";
  if (!d.evidence.empty()) {
    out << "<h3>Evidence</h3><ul>";
    for (const auto& e : d.evidence) out << "<li>" << HtmlEscape(e) << "</li>";
    out << "</ul>\n";
  }
  if (i.series.figures > 0) out << "<h3>Memory before the failure</h3>" << SeriesChart(i.series) << "\n";
  std::string segments = SegmentMap(i);
  if (!segments.empty()) {
    out << "<h3>Segments</h3>" << segments
        << "<p class='muted'>blue: allocated, green: free, yellow: freed, awaiting another stream; grey: "
           "blocks "
           "not kept; the largest segments first</p>\n";
  }
  if (!i.allocations.empty()) {
    out << "<h3>Largest " << ListingNoun(i) << "</h3>" << AllocationChart(ListingOrder(i.allocations, 10))
        << "<p class='muted'>dark: data, light: padding</p>" << GroupsTable(i)
        << "<table><tr><th>size</th><th>shape</th><th>operator or owner</th><th>padding</th></tr>";
    for (const Allocation* a : ListingOrder(i.allocations, 20)) {
      const Facts& f = a->fields;
      auto get = [&f](const char* n) {
        auto it = f.find(n);
        if (it == f.end()) return std::string();
        return it->second.type == FactType::kSize ? FormatSize(it->second.integer) : it->second.text;
      };
      out << "<tr><td>" << HtmlEscape(get("size_bytes")) << "</td><td>" << HtmlEscape(get("shape"))
          << "</td><td>" << HtmlEscape(get("operator").empty() ? get("owner") : get("operator"))
          << "</td><td>" << HtmlEscape(get("padding_bytes")) << "</td></tr>";
    }
    out << "</table>\n";
  }
  if (!d.advice.empty()) {
    out << "<h3>Advice</h3><ol>";
    for (const auto& a : d.advice) out << "<li>" << HtmlEscape(a) << "</li>";
    out << "</ol>\n";
  }
  if (!d.fit.empty()) out << "<p><b>Would fit:</b> " << HtmlEscape(d.fit) << "</p>\n";
  if (!d.also_consider.empty()) {
    out << "<h3>Also consider</h3><ul class='muted'>";
    for (const auto& c : d.also_consider)
      out << "<li>" << HtmlEscape(c.advice) << " (" << HtmlEscape(c.why) << ")</li>";
    out << "</ul>\n";
  }
  for (const auto& doc : d.docs) {
    bool web = doc.rfind("https://", 0) == 0 || doc.rfind("http://", 0) == 0;
    out << "<p>" << (web ? "<a href='" + HtmlEscape(doc) + "'>" : "") << HtmlEscape(doc)
        << (web ? "</a>" : "") << "</p>\n";
  }
  out << "<pre>";
  for (const auto& line : i.excerpt) out << HtmlEscape(line) << "\n";
  out << "</pre>\n";
}

// A record of memory held that no failure took: what held it, and who; no cause.
void RenderMemoryRecordHtml(const Incident& i, std::ostream& out) {
  out << "<h2>" << HtmlEscape(i.title) << "</h2>\n<p class='muted'>read from "
      << HtmlEscape(LocationText(i.first))
      << (i.devices.empty() ? "" : ", " + HtmlEscape(FormatNameSet(i.devices)))
      << "; no OOM in it</p>\n<table>";
  for (const auto& [name, value] : i.facts)
    out << "<tr><th>" << HtmlEscape(FactLabel(name)) << "</th><td>"
        << HtmlEscape(value.type == FactType::kSize ? FormatSize(value.integer) : value.text) << "</td></tr>";
  out << "</table>\n" << GroupsTable(i) << "\n";
}

}  // namespace

std::string HtmlEscape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        if (c < 0x20 && c != '\t' && c != '\n') out += "&#xFFFD;";  // control bytes from the log
        else out += static_cast<char>(c);
    }
  }
  return out;
}

namespace {

void RenderHtmlIn(bool fragment, const Report& report, size_t incidents_total, std::ostream& out) {
  std::string verdict = HtmlEscape(VerdictFound(report, incidents_total));
  BeginHtml(fragment, "oomlens: " + verdict, kStyle, "; img-src data:", out);
  out << "<h1>oomlens: " << verdict << "</h1>\n<p class='muted'>";
  for (const auto& in : report.inputs)
    out << HtmlEscape(in.name) << " ("
        << (!in.ok && in.bytes == 0 ? "not read"
            : !in.record.empty()    ? in.record
                                    : Counted(in.lines, "line", "lines"))
        << ") ";
  out << "</p>\n";
  bool any_went_on = AnyWentOn(report);
  for (size_t k = 0; k < report.incidents.size(); ++k)
    RenderIncidentHtml(report.incidents[k], k + 1, any_went_on, out);
  for (const auto& memory : report.memory_records) RenderMemoryRecordHtml(memory, out);
  out << "<p class='muted'>oomlens " << Version() << "</p>\n";
  EndHtml(fragment, out);
}

}  // namespace

void RenderHtml(const Report& report, std::ostream& out, size_t incidents_total) {
  RenderHtmlIn(false, report, incidents_total, out);
}

void RenderHtmlFragment(const Report& report, std::ostream& out) { RenderHtmlIn(true, report, 0, out); }

}  // namespace oomlens
