#include "oomlens/diff.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>

#include "core/model/fact_values.h"
#include "oomlens/size.h"

namespace oomlens {
namespace {

std::string MatchKey(const Incident& i) {
  return i.kind + "|" + FactTextIn(i.facts, "program") + "|" + FactTextIn(i.facts, "memory_space");
}

// A memory record is of what recorded it (its title) and the devices it describes.
std::string RecordKey(const Incident& i) {
  std::string key = i.kind + "|" + i.title;
  for (const auto& device : i.devices) key += "|" + device;
  return key;
}

// The numbers a reader looks at first come first; the rest by name.
int Rank(const std::string& fact) {
  static const char* const kFirst[] = {
      "requested_bytes", "free_bytes",       "used_bytes",         "limit_bytes",       "exceeded_by_bytes",
      "program_bytes",   "reservable_bytes", "largest_free_bytes", "live_buffer_bytes", "executable_bytes"};
  constexpr int kCount = sizeof kFirst / sizeof kFirst[0];
  for (int k = 0; k < kCount; ++k)
    if (fact == kFirst[k]) return k;
  return kCount;
}

bool Numeric(const FactValue& v) { return v.type == FactType::kSize || v.type == FactType::kCount; }

// The dimensions of the most padded shape (padding_minor_dim ...) describe a shape
// for the advice, not memory: a diff shows the padding in bytes instead.
bool ShapeDimension(const std::string& name) {
  return name.rfind("padding_", 0) == 0 && name.find("_bytes") == std::string::npos;
}

bool Differ(const FactValue& a, const FactValue& b) {
  return std::fabs(Gap(a.integer, b.integer)) > a.tolerance + b.tolerance + 0.5;
}

// Sizes and counts, printed or derived, that moved between the two incidents.
std::vector<FactChange> CompareFacts(const Incident& a, const Incident& b) {
  std::map<std::string, FactChange> changes;
  auto collect = [&changes](const Facts& facts, bool before) {
    for (const auto& [name, value] : facts) {
      if (!Numeric(value) || ShapeDimension(name)) continue;
      FactChange& c = changes[name];
      c.name = name;
      (before ? c.in_before : c.in_after) = true;
      (before ? c.before : c.after) = value;
    }
  };
  collect(a.facts, true);
  collect(a.derived, true);
  collect(b.facts, false);
  collect(b.derived, false);
  std::vector<FactChange> out;
  for (auto& [name, c] : changes) {
    if (c.in_before && c.in_after && !Differ(c.before, c.after)) continue;
    out.push_back(std::move(c));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const FactChange& x, const FactChange& y) { return Rank(x.name) < Rank(y.name); });
  return out;
}

// What an allocation is across two runs: its operator (op_name) when printed,
// since a fix often changes its shape; else its owner and shape; else its shape.
// XLA labels are renumbered by every compile, so they never identify one.
std::string AllocationKey(const Allocation& a) {
  auto field = [&a](const char* name) {
    auto it = a.fields.find(name);
    return it == a.fields.end() ? std::string() : it->second.text;
  };
  std::string key = field("operator");
  if (key.empty())
    key = field("owner") + (field("owner").empty() || field("shape").empty() ? "" : " ") + field("shape");
  std::string type = field("type");
  return key.empty() || type.empty() ? key : key + " (" + type + ")";
}

int64_t FieldBytes(const Allocation& a, const char* field) {
  auto it = a.fields.find(field);
  return it == a.fields.end() ? -1 : it->second.integer;
}

// Allocations keyed by what they are; several with one key are summed.
std::map<std::string, AllocationChange> Tally(const std::vector<Allocation>& list, bool before,
                                              std::map<std::string, AllocationChange> into) {
  for (const auto& a : list) {
    int64_t size = FieldBytes(a, "size_bytes");
    std::string key = AllocationKey(a);
    if (size < 0 || key.empty()) continue;
    AllocationChange& c = into[key];
    c.key = key;
    int64_t& bytes = before ? c.before_bytes : c.after_bytes;
    bytes = std::max<int64_t>(bytes, 0) + size;
    int64_t padding = FieldBytes(a, "padding_bytes");
    if (padding >= 0) {
      int64_t& p = before ? c.before_padding : c.after_padding;
      p = std::max<int64_t>(p, 0) + padding;
    }
  }
  return into;
}

std::vector<AllocationChange> CompareAllocations(const Incident& a, const Incident& b) {
  auto tallies = Tally(b.allocations, false, Tally(a.allocations, true, {}));
  std::vector<AllocationChange> out;
  for (auto& [key, c] : tallies) {
    using Status = AllocationChange::Status;
    if (c.before_bytes < 0) c.status = Status::kNew;
    else if (c.after_bytes < 0) c.status = Status::kGone;
    else if (c.after_bytes > c.before_bytes) c.status = Status::kGrew;
    else if (c.after_bytes < c.before_bytes) c.status = Status::kShrank;
    else if (c.after_padding != c.before_padding) c.status = Status::kPadding;
    else continue;
    out.push_back(std::move(c));
  }
  std::stable_sort(out.begin(), out.end(), [](const AllocationChange& x, const AllocationChange& y) {
    return std::max(x.before_bytes, x.after_bytes) > std::max(y.before_bytes, y.after_bytes);
  });
  return out;
}

IncidentDiff Describe(const Incident& i, IncidentDiff::Status status, bool before) {
  IncidentDiff d;
  d.status = status;
  d.kind = i.kind;
  d.code = i.code;
  d.title = i.title;
  d.program = FactTextIn(i.facts, "program");
  (before ? d.before_cause : d.after_cause) = i.diagnosis.best.cause;
  (before ? d.before_occurrences : d.after_occurrences) = i.occurrences;
  (before ? d.before_first : d.after_first) = i.first;
  return d;
}

}  // namespace

const char* StatusName(AllocationChange::Status status) {
  static const char* const kNames[] = {"new", "gone", "grew", "shrank", "padding"};
  return kNames[static_cast<int>(status)];
}

const char* StatusName(IncidentDiff::Status status) {
  static const char* const kNames[] = {"appeared", "changed", "vanished", "same"};
  return kNames[static_cast<int>(status)];
}

std::string FormatChange(const FactValue& before, const FactValue& after) {
  double delta = Gap(after.integer, before.integer);
  std::string sign = delta >= 0 ? "+" : "-";
  int64_t change = SaturatedCount(std::fabs(delta));  // two figures at int64's ends differ by more
  std::string out = sign + (after.type == FactType::kSize ? FormatSize(change) : std::to_string(change));
  if (before.integer != 0) {
    char pct[32];
    std::snprintf(pct, sizeof pct, " (%+.0f%%)",
                  100.0 * delta / std::fabs(static_cast<double>(before.integer)));
    out += pct;
  }
  return out;
}

namespace {

// The incidents of two runs matched by key (in order when several share one).
template <typename Key>
std::vector<IncidentDiff> DiffIncidents(const std::vector<Incident>& before,
                                        const std::vector<Incident>& after, Key key) {
  std::vector<IncidentDiff> out;
  std::vector<bool> used(after.size(), false);
  for (const auto& a : before) {
    size_t match = after.size();
    for (size_t k = 0; k < after.size() && match == after.size(); ++k) {
      if (!used[k] && key(after[k]) == key(a)) match = k;
    }
    if (match == after.size()) {
      out.push_back(Describe(a, IncidentDiff::Status::kVanished, true));
      continue;
    }
    used[match] = true;
    const Incident& b = after[match];
    IncidentDiff d = Describe(a, IncidentDiff::Status::kSame, true);
    d.after_cause = b.diagnosis.best.cause;
    d.after_occurrences = b.occurrences;
    d.after_first = b.first;
    d.facts = CompareFacts(a, b);
    d.allocations = CompareAllocations(a, b);
    bool changed = !d.facts.empty() || !d.allocations.empty() || d.before_cause != d.after_cause;
    d.status = changed ? IncidentDiff::Status::kChanged : IncidentDiff::Status::kSame;
    out.push_back(std::move(d));
  }
  for (size_t k = 0; k < after.size(); ++k) {
    if (!used[k]) out.push_back(Describe(after[k], IncidentDiff::Status::kAppeared, false));
  }
  std::stable_sort(out.begin(), out.end(), [](const IncidentDiff& x, const IncidentDiff& y) {
    return x.status < y.status;  // the enum is in report order
  });
  return out;
}

}  // namespace

ReportDiff DiffReports(const Report& before, const Report& after, const std::string& before_name,
                       const std::string& after_name) {
  ReportDiff diff;
  diff.before_name = before_name;
  diff.after_name = after_name;
  diff.before_incidents = before.incidents.size();
  diff.after_incidents = after.incidents.size();
  diff.incidents = DiffIncidents(before.incidents, after.incidents, MatchKey);
  diff.before_records = before.memory_records.size();
  diff.after_records = after.memory_records.size();
  diff.memory_records = DiffIncidents(before.memory_records, after.memory_records, RecordKey);
  return diff;
}

}  // namespace oomlens
