// Text and JSON of a ReportDiff.
#include <algorithm>

#include "core/model/fact_values.h"
#include "core/render/render_json.h"
#include "oomlens/diff.h"
#include "oomlens/render.h"
#include "oomlens/size.h"

namespace oomlens {
namespace {

using ojson = nlohmann::ordered_json;

constexpr size_t kAllocationsShown = 8;

std::string Value(const FactValue& v) { return v.type == FactType::kSize ? FormatSize(v.integer) : v.text; }

std::string Head(const IncidentDiff& d) {
  std::string head = (d.code.empty() ? d.kind : d.code) + " " + d.title;
  if (!d.program.empty()) head += " '" + d.program + "'";
  if (d.before_cause.empty() && d.after_cause.empty()) return head;  // memory held has no cause
  if (d.before_cause.empty()) return head + " · " + d.after_cause;
  if (d.after_cause.empty() || d.after_cause == d.before_cause) return head + " · " + d.before_cause;
  return head + " · " + d.before_cause + " -> " + d.after_cause;
}

std::string Where(const IncidentDiff& d) {
  return LocationText(d.after_first.input.empty() ? d.before_first : d.after_first);
}

std::string Bytes(int64_t b) { return b < 0 ? "-" : FormatSize(b); }

void RenderChanges(const IncidentDiff& d, std::ostream& out) {
  if (d.before_occurrences != d.after_occurrences && d.before_occurrences && d.after_occurrences) {
    out << "      occurrences        " << d.before_occurrences << " -> " << d.after_occurrences << "\n";
  }
  for (const auto& c : d.facts) {
    std::string label = FactLabel(c.name);
    label.resize(std::max<size_t>(label.size(), 18), ' ');
    out << "      " << label << " " << (c.in_before ? Value(c.before) : "-") << " -> "
        << (c.in_after ? Value(c.after) : "-");
    if (c.in_before && c.in_after) out << "  " << FormatChange(c.before, c.after);
    out << "\n";
  }
  for (size_t k = 0; k < d.allocations.size() && k < kAllocationsShown; ++k) {
    const AllocationChange& a = d.allocations[k];
    out << "      allocation         " << StatusName(a.status) << " " << Bytes(a.before_bytes) << " -> "
        << Bytes(a.after_bytes);
    if (a.before_padding != a.after_padding) {
      out << " (padding " << Bytes(a.before_padding) << " -> " << Bytes(a.after_padding) << ")";
    }
    out << "  " << Printable(a.key.size() > 90 ? a.key.substr(0, 87) + "..." : a.key) << "\n";
  }
  if (d.allocations.size() > kAllocationsShown) {
    out << "      ... " << d.allocations.size() - kAllocationsShown
        << " more allocation changes (see --format json)\n";
  }
}

// One line per incident (or memory record) and what changed in it.
void RenderEach(const std::vector<IncidentDiff>& diffs, std::ostream& out) {
  for (const auto& d : diffs) {
    std::string status = StatusName(d.status);
    status.resize(10, ' ');
    out << "  " << status << Printable(Head(d)) << "  (" << Printable(Where(d)) << ")\n";
    RenderChanges(d, out);
  }
}

ojson FactJson(bool present, const FactValue& v) {
  if (!present) return nullptr;
  return v.type == FactType::kCount || v.type == FactType::kSize ? ojson(v.integer) : ojson(v.text);
}

ojson BytesJson(int64_t b) { return b < 0 ? ojson(nullptr) : ojson(b); }

ojson LocationJson(const Location& l) {
  if (l.input.empty()) return nullptr;
  return {{"input", l.input}, {"line", l.line}};
}

}  // namespace

void RenderDiffText(const ReportDiff& diff, std::ostream& out) {
  out << "oomlens diff: " << Printable(diff.before_name) << " (" << diff.before_incidents << " incident"
      << (diff.before_incidents == 1 ? "" : "s") << ") -> " << Printable(diff.after_name) << " ("
      << diff.after_incidents << " incident" << (diff.after_incidents == 1 ? "" : "s") << ")\n";
  if (diff.incidents.empty() && diff.memory_records.empty()) out << "  no incident in either run\n";
  RenderEach(diff.incidents, out);
  if (diff.memory_records.empty()) return;
  out << "memory held: " << diff.before_records << " record" << (diff.before_records == 1 ? "" : "s")
      << " -> " << diff.after_records << " record" << (diff.after_records == 1 ? "" : "s") << "\n";
  RenderEach(diff.memory_records, out);
}

namespace {

ojson DiffJson(const IncidentDiff& d) {
  ojson facts = ojson::array(), allocations = ojson::array();
  for (const auto& c : d.facts) {
    facts.push_back({{"name", c.name},
                     {"before", FactJson(c.in_before, c.before)},
                     {"after", FactJson(c.in_after, c.after)}});
  }
  for (const auto& a : d.allocations) {
    allocations.push_back({{"key", a.key},
                           {"status", StatusName(a.status)},
                           {"before_bytes", BytesJson(a.before_bytes)},
                           {"after_bytes", BytesJson(a.after_bytes)},
                           {"before_padding", BytesJson(a.before_padding)},
                           {"after_padding", BytesJson(a.after_padding)}});
  }
  return {{"status", StatusName(d.status)},
          {"kind", d.kind},
          {"code", d.code},
          {"title", d.title},
          {"program", d.program},
          {"cause", {{"before", d.before_cause}, {"after", d.after_cause}}},
          {"occurrences", {{"before", d.before_occurrences}, {"after", d.after_occurrences}}},
          {"first", {{"before", LocationJson(d.before_first)}, {"after", LocationJson(d.after_first)}}},
          {"facts", facts},
          {"allocations", allocations}};
}

}  // namespace

void RenderDiffJson(const ReportDiff& diff, std::ostream& out) {
  ojson doc;
  doc["schema_version"] = 1;
  doc["before"] = {{"name", diff.before_name}, {"incidents", diff.before_incidents}};
  doc["after"] = {{"name", diff.after_name}, {"incidents", diff.after_incidents}};
  ojson incidents = ojson::array();
  for (const auto& d : diff.incidents) incidents.push_back(DiffJson(d));
  doc["incidents"] = incidents;
  if (!diff.memory_records.empty()) {  // absent when neither run has one: older readers see no change
    doc["before"]["memory_records"] = diff.before_records;
    doc["after"]["memory_records"] = diff.after_records;
    ojson records = ojson::array();
    for (const auto& d : diff.memory_records) records.push_back(DiffJson(d));
    doc["memory_records"] = records;
  }
  out << Dump(doc, 2) << "\n";
}

}  // namespace oomlens
