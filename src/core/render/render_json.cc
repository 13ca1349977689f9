#include "core/render/render_json.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/model/ascii.h"
#include "core/model/hash.h"
#include "oomlens/render.h"

namespace oomlens {
namespace {

using ojson = nlohmann::ordered_json;

ojson FactJson(const FactValue& v) {
  switch (v.type) {
    case FactType::kSize:
    case FactType::kCount: return v.integer;
    case FactType::kRatio: return v.number;
    case FactType::kText:
    case FactType::kIdentity: return v.text;
  }
  return nullptr;
}

ojson FactsJson(const Facts& facts) {
  ojson out = ojson::object();
  for (const auto& [name, value] : facts) out[name] = FactJson(value);
  return out;
}

// Hosts and devices as people count them: worker-2 before worker-10.
std::vector<std::string> InNaturalOrder(const std::set<std::string>& names) {
  std::vector<std::string> out(names.begin(), names.end());
  std::stable_sort(out.begin(), out.end(),
                   [](const std::string& a, const std::string& b) { return NaturalLess(a, b); });
  return out;
}

// {"free_bytes": [min, max], ...}
ojson RangesJson(const std::map<std::string, FigureRange>& ranges) {
  ojson out = ojson::object();
  for (const auto& [name, range] : ranges) out[name] = {range.min, range.max};
  return out;
}

// The text as logged of the numeric facts ("147.64M"): their values are exact bytes.
ojson PrintedJson(const Facts& facts) {
  ojson printed = ojson::object();
  for (const auto& [name, value] : facts) {
    if (value.type == FactType::kSize || value.type == FactType::kCount) printed[name] = value.text;
  }
  return printed;
}

// The memory series printed before the incident, or null.
ojson SeriesJson(const MemorySeries& s) {
  if (s.figures == 0) return nullptr;
  ojson points = ojson::array();
  for (const auto& p : s.points) points.push_back({p.line, p.bytes});
  ojson j;
  j["name"] = s.name;
  j["key"] = s.key;
  j["host"] = s.host;
  j["samples"] = s.figures;
  j["limit_bytes"] = s.limit_bytes < 0 ? ojson(nullptr) : ojson(s.limit_bytes);
  j["first"] = {{"input", s.first.input}, {"line", s.first.line}};
  j["last"] = {{"input", s.last.input}, {"line", s.last.line}};
  j["first_seconds"] = s.first_seconds < 0 ? ojson(nullptr) : ojson(s.first_seconds);
  j["last_seconds"] = s.last_seconds < 0 ? ojson(nullptr) : ojson(s.last_seconds);
  j["points"] = points;  // [line, bytes], at most 1024 (decimated evenly beyond)
  return j;
}

// What its input showed after the incident's last occurrence.
ojson AftermathJson(const Aftermath& a) {
  ojson j;
  j["last"] = {{"input", a.last.input}, {"line", a.last.line}, {"host", a.last_host}};
  j["last_seconds"] = a.last_seconds < 0 ? ojson(nullptr) : ojson(a.last_seconds);
  j["went_on"] = a.went_on;
  j["work"] = a.work;    // work lines (steps, compiles) after it
  j["steps"] = a.steps;  // of which completed steps
  j["lines"] = a.lines;  // lines from it to the last work line
  j["seconds"] = a.seconds < 0 ? ojson(nullptr) : ojson(a.seconds);
  return j;
}

}  // namespace

// A budget's figures: bytes for sizes, value for counts and shares, as printed, where.
ojson BudgetJson(const std::vector<BudgetEntry>& budget) {
  ojson out = ojson::array();
  for (const auto& b : budget) {
    ojson entry = {{"name", b.name}};
    if (b.value.type == FactType::kRatio) entry["value"] = b.value.number;
    else entry[b.value.type == FactType::kSize ? "bytes" : "value"] = b.value.integer;
    entry["printed"] = b.value.text;
    entry["source"] = {{"input", b.source.input}, {"line", b.source.line}};
    out.push_back(std::move(entry));
  }
  return out;
}

ojson IncidentJson(const Incident& i) {
  const Diagnosis& d = i.diagnosis;
  ojson printed = PrintedJson(i.facts);
  ojson alternatives = ojson::array();
  for (const auto& a : d.alternatives) {
    alternatives.push_back(
        {{"cause", a.cause}, {"confidence", a.confidence}, {"rule", a.rule}, {"evidence", a.evidence}});
  }
  ojson outliers = ojson::array();
  for (const auto& o : i.outliers) {
    outliers.push_back({{"input", o.where.input},
                        {"line", o.where.line},
                        {"who", o.who},
                        {"differences", o.differences},
                        {"facts", FactsJson(o.values)},
                        {"printed", PrintedJson(o.values)}});
  }
  ojson j;
  j["kind"] = i.kind;
  j["code"] = i.code;
  j["title"] = i.title;
  j["match"] = i.match;
  j["occurrences"] = i.occurrences;
  j["seen"] = {{"inputs", i.seen.inputs},
               {"first_time", i.seen.first_time},
               {"last_time", i.seen.last_time},
               {"days", i.seen.days},
               {"ranges", RangesJson(i.seen.ranges)}};
  j["first"] = {{"input", i.first.input}, {"line", i.first.line}, {"who", i.first_who}};
  if (i.record) j["record"] = true;
  if (!i.joins.empty()) j["joins"] = i.joins;
  if (!i.records.empty()) {
    ojson records = ojson::array();
    for (const auto& r : i.records) records.push_back({{"input", r.input}, {"line", r.line}});
    j["records"] = records;
  }
  j["replicas"] = i.replicas;
  j["partitions"] = i.partitions;
  j["hosts"] = InNaturalOrder(i.hosts);
  j["devices"] = InNaturalOrder(i.devices);
  j["ranks"] = i.ranks;
  j["facts"] = FactsJson(i.facts);
  j["printed"] = printed;
  j["derived"] = FactsJson(i.derived);
  ojson allocations = ojson::array();
  for (const auto& a : i.allocations) allocations.push_back(FactsJson(a.fields));
  j["allocations"] = allocations;
  ojson groups = ojson::array();
  for (const auto& g : i.allocation_groups) {
    groups.push_back({{"by", GroupByName(g.by)},
                      {"key", g.key},
                      {"count", g.count},
                      {"bytes", g.bytes},
                      {"share", g.share}});
  }
  j["allocation_groups"] = groups;
  j["series"] = SeriesJson(i.series);
  j["history"] = {{"compiles", i.history.compiles},
                  {"first_compile_line", i.history.first_compile_line},
                  {"steps", i.history.steps},
                  {"last_step_line", i.history.last_step_line}};
  j["ended_job"] = i.after.ended_job();
  j["after"] = AftermathJson(i.after);
  j["budget"] = BudgetJson(i.budget);
  j["phase"] = {{"name", i.phase.Name()},
                {"evidence", i.phase.evidence},
                {"input", i.phase.where.input},
                {"line", i.phase.where.line}};
  j["cause"] = d.best.cause;
  j["confidence"] = d.best.confidence;
  j["summary"] = d.summary;
  j["evidence"] = d.evidence;
  j["advice"] = d.advice;
  ojson also = ojson::array();
  for (const auto& c : d.also_consider) also.push_back({{"advice", c.advice}, {"why", c.why}});
  j["also_consider"] = also;
  j["fit"] = d.fit;
  j["formulas"] = d.formulas;
  j["docs"] = d.docs;
  j["rule"] = d.best.rule;
  j["alternatives"] = alternatives;
  j["outliers"] = outliers;
  j["consequence_of"] = i.consequence_of == 0 ? ojson(nullptr) : ojson(i.consequence_of);
  j["relation"] = i.relation;
  j["excerpt"] = i.excerpt;
  j["excerpt_lines"] = std::max<uint64_t>(i.excerpt_total, i.excerpt.size());
  return j;
}

std::string Fingerprint(const Incident& i) {
  std::string key = i.kind + "|" + i.diagnosis.best.cause;
  for (const char* name : {"program", "shape", "requested_bytes", "used_bytes", "limit_bytes"}) {
    auto it = i.facts.find(name);
    key += "|" + (it == i.facts.end() ? std::string() : it->second.text);
  }
  return Fnv1a().Add(key).Hex();
}

std::string Dump(const ojson& j, int indent) {
  return j.dump(indent, ' ', false, ojson::error_handler_t::replace);
}

// Writes j as it would appear nested `depth` levels deep in a document dumped
// with indent 2.
void WriteNested(const ojson& j, int depth, std::ostream& out) {
  std::string text = Dump(j, 2), pad(static_cast<size_t>(2 * depth), ' ');
  out << pad;
  for (char c : text) {
    out << c;
    if (c == '\n') out << pad;  // a newline inside a string is written as \n: this one is structure
  }
}

void RenderJson(const Report& report, std::ostream& out) {
  ojson doc;
  doc["schema_version"] = 1;
  doc["oomlens_version"] = Version();
  ojson inputs = ojson::array();
  for (const auto& in : report.inputs) {
    ojson entry = {{"name", in.name}, {"lines", in.lines}, {"bytes", in.bytes}, {"ok", in.ok}};
    if (!in.record.empty()) entry["record"] = in.record;
    inputs.push_back(std::move(entry));
  }
  doc["inputs"] = inputs;
  doc["incidents"] = ojson::array();  // written one by one below: the document is never whole in memory
  ojson problems = ojson::array();
  for (const auto& p : report.problems) {
    problems.push_back({{"severity", p.severity == Problem::Severity::kError ? "error" : "warning"},
                        {"where", p.where},
                        {"message", p.message},
                        {"help", p.help}});
  }
  doc["problems"] = problems;
  if (!report.memory_records.empty()) {
    ojson records = ojson::array();
    for (const auto& memory : report.memory_records) records.push_back(IncidentJson(memory));
    doc["memory_records"] = records;
  }
  if (!report.budgets.empty()) {
    ojson budgets = ojson::array();
    for (const auto& b : report.budgets)
      budgets.push_back({{"input", b.input}, {"budget", BudgetJson(b.entries)}});
    doc["budgets"] = budgets;
  }
  if (report.not_kept.events > 0) {
    const EventsNotKept& n = report.not_kept;
    doc["not_kept"] = {{"events", n.events}, {"kinds", n.kinds}, {"inputs", n.inputs}};
  }
  // Invalid UTF-8 from the log becomes U+FFFD, so the document is always valid.
  std::string frame = Dump(doc, 2);
  const std::string slot = "\n  \"incidents\": []";
  size_t at = frame.find(slot) + slot.size() - 1;  // at its ']'
  out << frame.substr(0, at - 1);
  if (report.incidents.empty()) {
    out << "[]";
  } else {
    out << "[\n";
    for (size_t k = 0; k < report.incidents.size(); ++k) {
      if (k > 0) out << ",\n";
      WriteNested(IncidentJson(report.incidents[k]), 2, out);
    }
    out << "\n  ]";
  }
  out << frame.substr(at + 1) << "\n";
}

}  // namespace oomlens
