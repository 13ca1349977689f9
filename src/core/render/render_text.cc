#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>
#include <vector>

#include "core/analyze/allocation_summary.h"
#include "core/model/ascii.h"
#include "core/model/fact_values.h"
#include "core/model/from_chars.h"
#include "core/render/verdict.h"
#include "oomlens/render.h"
#include "oomlens/size.h"

namespace oomlens {
namespace {

// Facts shown on the "facts" line, in this order; others follow by name.
const char* const kFactOrder[] = {"program",        "memory_space",     "requested_bytes",    "free_bytes",
                                  "reserved_bytes", "reservable_bytes", "largest_free_bytes", "used_bytes",
                                  "limit_bytes",    "capacity_bytes",   "exceeded_by_bytes"};

class Style {
 public:
  explicit Style(bool color) : color_(color) {}
  std::string Bold(const std::string& s) const { return Wrap("1", s); }
  std::string Dim(const std::string& s) const { return Wrap("2", s); }
  std::string Red(const std::string& s) const { return Wrap("1;31", s); }
  std::string Yellow(const std::string& s) const { return Wrap("33", s); }

 private:
  std::string Wrap(const char* code, const std::string& s) const {
    return color_ ? "\x1b[" + std::string(code) + "m" + s + "\x1b[0m" : s;
  }
  bool color_;
};

std::string FactText(const FactValue& v) {
  if (v.type == FactType::kSize) return FormatSize(v.integer);
  return v.text;
}

// "label value", or the label alone when the value says the same: a fact that
// records a phrase seen ("memory pressure", "Aborting compilation early").
std::string FactPart(const std::string& name, const std::string& value) {
  std::string label = FactLabel(name);
  return EqualIgnoringCase(value, label) ? label : label + " " + value;
}

std::string FactsLine(const Facts& facts) {
  std::vector<std::string> parts;
  std::vector<std::string> shown;
  for (const char* name : kFactOrder) {
    auto it = facts.find(name);
    if (it == facts.end()) continue;
    std::string value = it->first == "program" ? "'" + it->second.text + "'" : FactText(it->second);
    parts.push_back(FactPart(name, value));
    shown.push_back(name);
  }
  for (const auto& [name, value] : facts) {
    if (std::find(shown.begin(), shown.end(), name) != shown.end()) continue;
    parts.push_back(FactPart(name, FactText(value)));
  }
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : " · ") + p;
  return Printable(out);
}

std::string WhereLine(const Incident& i) {
  std::vector<std::string> parts;
  auto ids = [&parts](const char* one, const char* many, const std::set<int64_t>& s) {
    if (!s.empty()) parts.push_back(std::string(s.size() == 1 ? one : many) + " " + FormatIdSet(s));
  };
  auto names = [&parts](const char* one, const char* many, const std::set<std::string>& s) {
    if (!s.empty()) parts.push_back(std::string(s.size() == 1 ? one : many) + " " + FormatNameSet(s));
  };
  names("host", "hosts", i.hosts);
  ids("replica", "replicas", i.replicas);
  ids("partition", "partitions", i.partitions);
  names("device", "devices", i.devices);
  ids("rank", "ranks", i.ranks);
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : " · ") + p;
  return Printable(out);
}

std::string Verdict(const Report& report, size_t total) {
  return "oomlens: " + VerdictFound(report, total) + Printable(VerdictRead(report));
}

const FactValue* Field(const Allocation& a, const char* name) {
  auto it = a.fields.find(name);
  return it == a.fields.end() ? nullptr : &it->second;
}

// One line per allocation: size, share of the limit, shape, operator, padding, type.
std::string AllocationLine(const Allocation& a, const Facts& facts) {
  std::vector<std::string> parts;
  const FactValue* size = Field(a, "size_bytes");
  if (size) parts.push_back(FormatSize(size->integer));
  auto limit = facts.find("limit_bytes");
  if (size && limit != facts.end() && limit->second.integer > 0) {
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.0f%% of limit", 100.0 * size->number / limit->second.number);
    parts.push_back(pct);
  }
  if (const FactValue* pid = Field(a, "pid")) parts.push_back("pid " + pid->text);
  for (const char* name : {"owner", "shape", "op_type", "operator"}) {
    if (const FactValue* v = Field(a, name))
      parts.push_back(v->text.size() > 80 ? v->text.substr(0, 77) + "..." : v->text);
  }
  if (const FactValue* file = Field(a, "source_file")) {
    const FactValue* line = Field(a, "source_line");
    parts.push_back(file->text + (line ? ":" + line->text : ""));
  }
  if (const FactValue* pad = Field(a, "padding_bytes")) {
    const FactValue* x = Field(a, "expansion");
    parts.push_back("padding " + FormatSize(pad->integer) + (x ? " (" + x->text + "x)" : ""));
  }
  if (const FactValue* type = Field(a, "type")) parts.push_back(type->text);
  if (Field(a, "state") && AllocationState(a) != std::string("allocated"))
    parts.push_back(AllocationState(a));
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "  ") + p;
  return Printable(out);
}

std::string Pct(double share) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.0f%%", 100.0 * share);
  return buf;
}

std::string DerivedSize(const Incident& i, const char* name) {
  auto it = i.derived.find(name);
  return it == i.derived.end() ? "" : FormatSize(it->second.integer);
}

// Entries the listing had: a report may keep fewer (kMaxAllocationsPerReport).
uint64_t Listed(const Incident& i) {
  auto it = i.derived.find("allocation_count");
  return it != i.derived.end() ? static_cast<uint64_t>(it->second.integer) : i.allocations.size();
}

// "allocations (5000 listed, live 14.2G, free 1.3G in 50 blocks, largest 64.0M)"
std::string AllocationsHead(const Incident& i) {
  std::string head = std::string(ListingNoun(i)) + " (" + std::to_string(Listed(i)) + " listed";
  std::string live = DerivedSize(i, "allocated_total_bytes"), free = DerivedSize(i, "free_total_bytes");
  if (!live.empty() && !free.empty()) head += ", live " + live;
  if (!free.empty()) {  // a report read back may lack the count (a summary from another version, or edited)
    auto blocks = i.derived.find("free_block_count");
    head += ", free " + free +
            (blocks != i.derived.end()
                 ? " in " + Counted(static_cast<uint64_t>(blocks->second.integer), "block", "blocks")
                 : "");
    std::string largest = DerivedSize(i, "largest_free_block_bytes");
    if (!largest.empty()) head += ", largest " + largest;
  }
  std::string padding = DerivedSize(i, "padding_total_bytes");
  if (!padding.empty()) head += ", padding " + padding + " in total";
  return head + ")";
}

// One line per kind of group: the three largest owners, labels, identical buffers.
void RenderGroups(const Incident& i, const Style& style, std::ostream& out) {
  const size_t kShown = 3;
  for (auto by :
       {AllocationGroup::By::kOwner, AllocationGroup::By::kLabel, AllocationGroup::By::kIdentical}) {
    std::vector<std::string> parts;
    size_t total = 0;
    for (const auto& g : i.allocation_groups) {
      if (g.by != by || ++total > kShown) continue;
      std::string key = g.key.size() > 60 ? g.key.substr(0, 57) + "..." : g.key;
      if (by == AllocationGroup::By::kIdentical) {
        parts.push_back(std::to_string(g.count) + " x " + key + " = " + FormatSize(g.bytes) + " (" +
                        Pct(g.share) + " of listed)");
      } else {
        parts.push_back(key + " " + FormatSize(g.bytes) + " (" + Pct(g.share) + ", " +
                        std::to_string(g.count) + ")");
      }
    }
    if (parts.empty()) continue;
    if (total > kShown)
      parts.push_back(total < kGroupsKept ? std::to_string(total - kShown) + " more" : "more");
    std::string label =
        by == AllocationGroup::By::kIdentical ? "identical " : std::string(GroupByName(by)) + "s    ";
    std::string line;
    for (const auto& p : parts) line += (line.empty() ? "" : " · ") + p;
    out << "      " << style.Dim(label) << Printable(line) << "\n";
  }
}

void RenderAllocations(const Incident& i, const Style& style, std::ostream& out) {
  if (!HasListing(i)) return;
  const size_t kShown = 5;
  out << "    " << style.Dim(AllocationsHead(i)) << "\n";
  RenderGroups(i, style, out);
  size_t k = 0;
  for (const Allocation* a : ListingOrder(i.allocations, kShown)) {
    const FactValue* rank = Field(*a, "rank");
    out << "      " << (rank ? rank->text : std::to_string(++k)) << ". " << AllocationLine(*a, i.facts)
        << "\n";
  }
  uint64_t listed = Listed(i), shown = std::min<uint64_t>(kShown, i.allocations.size());
  if (listed > shown) {
    out << "      ... " << listed - shown << " more ("
        << (listed == i.allocations.size()
                ? std::string("see --format json")
                : "the JSON report keeps the largest " + std::to_string(i.allocations.size()))
        << ")\n";
  }
}

// "▁▂▃▅▇" from the points of a series, at most width characters.
std::string Sparkline(const std::vector<SeriesPoint>& points, size_t width) {
  static const char* const kBars[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  if (points.empty()) return "";
  int64_t lo = points.front().bytes, hi = lo;
  for (const auto& p : points) {
    lo = std::min(lo, p.bytes);
    hi = std::max(hi, p.bytes);
  }
  std::string out;
  size_t n = std::min(points.size(), width);
  for (size_t k = 0; k < n; ++k) {
    int64_t v = points[k * points.size() / n].bytes;
    double span =
        std::max(static_cast<double>(hi - lo), 0.05 * static_cast<double>(hi));  // small wiggles stay flat
    size_t bar = span <= 0 ? 0 : static_cast<size_t>(7.0 * static_cast<double>(v - lo) / span + 0.5);
    out += kBars[bar];
  }
  return out;
}

// "memory used: 6.59G -> 12.58G over 10 figures ▁▂▃▄▅▆▇ (lines 8-17)"
std::string SeriesLine(const MemorySeries& s) {
  if (s.figures == 0 || s.points.empty()) return "";
  std::string out = s.name + (s.key.empty() ? "" : " on " + s.key) + ": " +
                    FormatSize(s.points.front().bytes) + " -> " + FormatSize(s.points.back().bytes) +
                    " over " + std::to_string(s.figures) + " figures " + Sparkline(s.points, 32);
  if (s.limit_bytes > 0) out += " (limit " + FormatSize(s.limit_bytes) + ")";
  out += " lines " + std::to_string(s.first.line) + "-" + std::to_string(s.last.line);
  return Printable(out);
}

void RenderIncident(const Incident& i, size_t number, bool any_went_on, const Style& style,
                    const RenderOptions& options, std::ostream& out) {
  const Diagnosis& d = i.diagnosis;
  char confidence[16];
  std::snprintf(confidence, sizeof confidence, "%.2f", d.best.confidence);
  std::string head =
      Printable("[" + std::to_string(number) + "] " + (i.code.empty() ? "" : i.code + " ") + i.title);
  out << style.Bold(head) << " · " << style.Red(d.best.cause) << " (confidence " << confidence << ")\n";
  out << "    " << Printable(d.summary) << "\n";
  auto row = [&](const char* label, const std::string& value) {
    if (!value.empty()) out << "    " << style.Dim(label) << value << "\n";
  };
  std::string seen = std::to_string(i.occurrences) + (i.occurrences == 1 ? " time" : " times") +
                     ", first at " + Printable(LocationText(i.first));
  row("seen      ", seen);
  for (const auto& record : i.records)
    row("record    ", Printable(LocationText(record)) + " (a record of the memory: its figures and listing)");
  if (i.match < 1) {
    char c[16];
    std::snprintf(c, sizeof c, "%.2f", i.match);
    bool figures = std::any_of(i.facts.begin(), i.facts.end(), [](const auto& fact) {
      const FactInfo* info = FindFact(fact.first);
      return info && info->type == FactType::kSize;
    });
    row("matched   ", std::string("by structure, not a known wording (confidence ") + c + ")" +
                          (figures ? ": the figures it shows are read" : ""));
  }
  row("where     ", WhereLine(i));
  if (i.consequence_of != 0) row("follows   ", "[" + std::to_string(i.consequence_of) + "]: " + i.relation);
  row("after     ", Printable(AftermathText(i.after, any_went_on)));
  row("phase     ", Printable(PhaseText(i.phase)));
  row("budget    ", Printable(BudgetText(i.budget)));
  for (const auto& formula : d.formulas) row("formula   ", Printable(formula));
  row("facts     ", FactsLine(i.facts));
  row("memory    ", SeriesLine(i.series));
  if (!d.evidence.empty()) {
    out << "    " << style.Dim("evidence") << "\n";
    for (const auto& e : d.evidence) out << "      - " << Printable(e) << "\n";
  }
  RenderAllocations(i, style, out);
  if (!d.advice.empty()) {
    out << "    " << style.Dim("advice") << "\n";
    for (size_t k = 0; k < d.advice.size(); ++k) {
      out << "      " << k + 1 << ". " << Printable(d.advice[k]) << "\n";
    }
  }
  if (!d.fit.empty()) row("would fit ", d.fit);
  if (!d.also_consider.empty()) out << "    " << style.Dim("also consider") << "\n";
  for (const auto& c : d.also_consider)
    out << "      - " << Printable(c.advice) << " (" << Printable(c.why) << ")\n";
  for (const auto& doc : d.docs) row("docs      ", doc);
  for (const auto& a : d.alternatives) {
    char c[16];
    std::snprintf(c, sizeof c, "%.2f", a.confidence);
    std::string why;
    for (const auto& e : a.evidence) why += (why.empty() ? ": " : "; ") + e;
    row("also      ", Printable(a.cause + " (confidence " + c + ", rule " + a.rule + ")" + why));
  }
  for (const auto& o : i.outliers) {
    std::string diffs;
    for (const auto& diff : o.differences) diffs += (diffs.empty() ? "" : "; ") + diff;
    row("outlier   ", style.Yellow(Printable(LocationText(o.where) +
                                             (o.who.empty() ? "" : " (" + o.who + ")") + ": " + diffs)));
  }
  if (!i.excerpt.empty() && options.max_excerpt_lines > 0) {
    out << "    " << style.Dim("excerpt") << "\n";
    size_t shown = std::min(i.excerpt.size(), options.max_excerpt_lines);
    for (size_t k = 0; k < shown; ++k) out << "      | " << Printable(i.excerpt[k]) << "\n";
    uint64_t total = std::max<uint64_t>(i.excerpt_total, i.excerpt.size());
    if (shown < total) out << "      | ... " << total - shown << " more lines\n";
  }
}

// A record of memory held that no failure took: what it held and who, no cause.
void RenderMemoryRecord(const Incident& i, const Style& style, std::ostream& out) {
  out << style.Bold(Printable(i.title)) << "\n";
  auto row = [&](const char* label, const std::string& value) {
    if (!value.empty()) out << "    " << style.Dim(label) << value << "\n";
  };
  row("read      ", Printable(LocationText(i.first)));
  row("where     ", WhereLine(i));
  row("facts     ", FactsLine(i.facts));
  RenderAllocations(i, style, out);
}

}  // namespace

std::string FormatIdSet(const std::set<int64_t>& ids) {
  std::string out;
  for (auto it = ids.begin(); it != ids.end();) {
    int64_t first = *it, last = first;
    auto next = std::next(it);
    while (next != ids.end() && *next == last + 1) {
      last = *next;
      ++next;
    }
    out += (out.empty() ? "" : ",") + std::to_string(first);
    if (last != first) out += "-" + std::to_string(last);
    it = next;
  }
  if (ids.size() > 1) out += " (" + std::to_string(ids.size()) + ")";
  return out;
}

std::string FormatNameSet(const std::set<std::string>& names) {
  // Names that differ only by a trailing number (worker-0 ... worker-31) fold into a range.
  std::map<std::string, std::set<int64_t>> numbered;
  std::vector<std::string> others;
  for (const auto& n : names) {
    size_t digits = n.size();
    while (digits > 0 && std::isdigit(static_cast<unsigned char>(n[digits - 1]))) --digits;
    if (digits < n.size() && n.size() - digits <= 9 && (n.size() - digits == 1 || n[digits] != '0')) {
      numbered[n.substr(0, digits)].insert(
          ParseInt64(std::string_view(n).substr(digits)).value_or(0));  // <= 9 digits
    } else {
      others.push_back(n);
    }
  }
  std::vector<std::string> parts;
  for (const auto& [prefix, ids] : numbered) {
    int64_t lo = *ids.begin(), hi = *ids.rbegin();
    if (ids.size() > 2 && hi - lo + 1 == static_cast<int64_t>(ids.size())) {
      parts.push_back(prefix + std::to_string(lo) + ".." + std::to_string(hi));
    } else {
      for (int64_t id : ids) parts.push_back(prefix + std::to_string(id));
    }
  }
  parts.insert(parts.end(), others.begin(), others.end());
  std::stable_sort(parts.begin(), parts.end(), [](const std::string& x, const std::string& y) {
    return NaturalLess(x, y);
  });  // as people count hosts: workers-0-2 before workers-0-10 (newcomer review)
  std::string out;
  const size_t kShown = 4;
  for (size_t k = 0; k < parts.size() && k < kShown; ++k) out += (k ? ", " : "") + parts[k];
  if (parts.size() > kShown) out += " +" + std::to_string(parts.size() - kShown) + " more";
  if (names.size() > 1) out += " (" + std::to_string(names.size()) + ")";
  return out;
}

void RenderText(const Report& report, const RenderOptions& options, std::ostream& out) {
  Style style(options.color);
  out << style.Bold(Verdict(report, options.incidents_total)) << "\n";
  for (size_t k = 0; report.incidents.size() > 1 && k < report.incidents.size(); ++k) {
    const Incident& i = report.incidents[k];
    out << "  [" << k + 1 << "] " << Printable(i.code.empty() ? i.kind : i.code) << ": ";
    if (i.consequence_of != 0) {
      out << "follows [" << i.consequence_of << "]: " << Printable(i.relation) << "\n";
    } else {
      out << Printable(i.diagnosis.summary) << " [" << i.diagnosis.best.cause << "]";
      out << (i.after.went_on ? " (survived: the job went on)" : "") << "\n";
    }
  }
  bool any_went_on = AnyWentOn(report);
  for (size_t k = 0; k < report.incidents.size(); ++k) {
    out << "\n";
    RenderIncident(report.incidents[k], k + 1, any_went_on, style, options, out);
  }
  for (const Incident& memory : report.memory_records) {
    out << "\n";
    RenderMemoryRecord(memory, style, out);
  }
  if (!options.headroom) return;
  for (const InputBudget& b : report.budgets) {  // --headroom: what each input planned, failed or not
    out << "\n" << style.Bold("budget of " + Printable(b.input)) << "\n";
    out << "    " << Printable(BudgetText(b.entries)) << "\n";
    if (std::string headroom = HeadroomText(b.entries); !headroom.empty())
      out << "    " << style.Dim("headroom  ") << Printable(headroom) << "\n";
  }
  if (report.budgets.empty()) out << "\nno input printed a memory budget (--headroom)\n";
}

}  // namespace oomlens
