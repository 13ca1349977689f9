// Reading a report written by RenderJson (schema version 1) back: merge and
// diff take per-shard reports. Beside its writer, so the two change together.
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <unordered_map>

#include "core/analyze/allocation_summary.h"
#include "core/analyze/finish.h"
#include "core/analyze/grouping.h"
#include "core/input/line_reader.h"
#include "core/model/json_depth.h"
#include "oomlens/render.h"
#include "oomlens/size.h"

namespace oomlens {
namespace {

using json = nlohmann::json;

// The member key of j when j is an object that has it, else an empty object:
// a missing or mistyped part of a report reads as absent, never out of bounds.
const json& Member(const json& j, const char* key) {
  static const json kEmpty = json::object();
  if (!j.is_object()) return kEmpty;
  auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : kEmpty;
}

// A time in seconds, or -1 when the member is missing or null.
double Seconds(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : -1.0;
}

// Reads facts from "facts" (typed values) and "printed" (the text as logged).
bool ReadFacts(const json& values, const json* printed, const FactInfo* (*find)(std::string_view), Facts* out,
               std::string* error) {
  for (const auto& [name, value] : values.items()) {
    const FactInfo* info = find(name);
    if (!info) continue;  // a fact of a newer oomlens: ignored, not fatal
    FactValue fact;
    std::string text = value.is_string() ? value.get<std::string>() : value.dump();
    if (printed && printed->contains(name) && (*printed)[name].is_string())
      text = (*printed)[name].get<std::string>();
    if (!MakeFact(*info, text, &fact, error)) {
      if (!value.is_number()) return false;
      fact = FactValue{};  // printed text unreadable: fall back to the exact number
      if (!MakeFact(*info, value.dump(), &fact, error)) return false;
    }
    if ((info->type == FactType::kSize || info->type == FactType::kCount) && value.is_number_integer()) {
      fact.integer = value.get<int64_t>();  // the number written is authoritative
      fact.number = static_cast<double>(fact.integer);
    }
    (*out)[name] = fact;
  }
  return true;
}

// The summary of the whole listing, which a report's entries may no longer give.
bool ReadListingSummary(const json& j, Incident* i, std::string* error) {
  Facts derived;
  if (!ReadFacts(Member(j, "derived"), nullptr, FindFact, &derived, error)) return false;
  for (auto& [name, value] : derived)
    if (IsListingFact(name)) i->listing_facts[name] = std::move(value);
  if (i->listing_facts.empty()) return true;  // none: summarised from the entries, if any
  for (const auto& g : j.value("allocation_groups", json::array())) {
    AllocationGroup group;
    std::string by = g.value("by", "");
    for (auto kind :
         {AllocationGroup::By::kOwner, AllocationGroup::By::kLabel, AllocationGroup::By::kIdentical})
      if (by == GroupByName(kind)) group.by = kind;
    group.key = g.value("key", "");
    group.count = g.value("count", int64_t{0});
    group.bytes = g.value("bytes", int64_t{0});
    group.share = g.value("share", 0.0);
    i->allocation_groups.push_back(std::move(group));
  }
  return true;
}

// "seen": inputs out of range are mended once the report's inputs are known.
bool ReadSightings(const json& seen, Sightings* out, std::string* error) {
  for (const auto& v : seen.value("inputs", json::array())) {
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > INT32_MAX) {
      *error = "seen.inputs must be indexes into inputs";
      return false;
    }
    out->inputs.push_back(static_cast<int>(v.get<int64_t>()));
  }
  out->first_time = seen.value("first_time", "");
  out->last_time = seen.value("last_time", "");
  for (const auto& [day, count] : Member(seen, "days").items()) {
    if (!count.is_number_unsigned() || count.get<uint64_t>() == 0) {
      *error = "seen.days counts must be whole numbers of 1 or more";
      return false;
    }
    if (out->days.size() < Sightings::kMaxDays) out->days[day] = count.get<uint64_t>();
  }
  for (const auto& item : Member(seen, "ranges").items()) {
    const std::string& name = item.key();
    const json& range = item.value();
    bool known = std::any_of(std::begin(Sightings::kRangedFacts), std::end(Sightings::kRangedFacts),
                             [&name](const char* ranged) { return name == ranged; });
    if (known && range.is_array() && range.size() == 2 && range[0].is_number_integer() &&
        range[1].is_number_integer() && range[0].get<int64_t>() <= range[1].get<int64_t>())
      out->ranges[name] = FigureRange{range[0].get<int64_t>(), range[1].get<int64_t>()};
  }
  return true;
}

// "not_kept": counts, and the inputs they were read in (indexes; out of range ones dropped).
bool ReadNotKept(const json& doc, size_t inputs, EventsNotKept* out, std::string* error) {
  const json& j = Member(doc, "not_kept");
  auto events = j.find("events");
  if (events == j.end()) return true;
  if (!events->is_number_unsigned()) {
    *error = "/not_kept/events: not a count";
    return false;
  }
  out->events = events->get<uint64_t>();
  for (const auto& [kind, count] : Member(j, "kinds").items()) {
    if (!count.is_number_unsigned()) {
      *error = "/not_kept/kinds: counts must be whole numbers";
      return false;
    }
    out->kinds[kind] = count.get<uint64_t>();
  }
  for (const auto& v : j.value("inputs", json::array()))
    if (v.is_number_integer() && v.get<int64_t>() >= 0 && v.get<int64_t>() < static_cast<int64_t>(inputs))
      out->inputs.insert(static_cast<int>(v.get<int64_t>()));
  return true;
}

// What came after the incident (an older report has none: its
// incidents count as having ended their job, unless it says "ended_job": false).
void ReadAftermath(const json& j, Aftermath* a) {
  const json& after = Member(j, "after");
  const json& last = Member(after, "last");
  a->last = Location{last.value("input", ""), last.value("line", uint64_t{0})};
  a->last_host = last.value("host", "");
  a->last_seconds = Seconds(after, "last_seconds");
  a->went_on = after.value("went_on", !j.value("ended_job", true));
  a->work = after.value("work", uint64_t{0});
  a->steps = after.value("steps", uint64_t{0});
  a->lines = after.value("lines", uint64_t{0});
  a->seconds = Seconds(after, "seconds");
}

// When it ran out (an older report has no phase: unknown); a name this oomlens
// does not know reads as unknown too.
void ReadPhase(const json& j, Phase* phase) {
  std::string name = j.value("name", "");
  for (const char* known : Phase::kNames) {
    if (name == known && name != "unknown") phase->name = name;
  }
  if (phase->name.empty()) return;
  phase->evidence = j.value("evidence", "");
  phase->where = Location{j.value("input", ""), j.value("line", uint64_t{0})};
}

// The budget printed before it (older reports have none): each figure read again
// from its printed text, so a report read back decides as the scan did.
bool ReadBudget(const json& j, std::vector<BudgetEntry>* budget, std::string* error) {
  for (const auto& b : j.value("budget", json::array())) {
    if (!b.is_object()) continue;
    const FactInfo* info = FindFact(b.value("name", ""));
    if (!info) continue;  // a figure this oomlens does not know
    BudgetEntry
        entry;  // member by member: GCC 12 -O2 -static warns a braced {} value may be used uninitialised
    entry.name = info->name;
    entry.source =
        Location{Member(b, "source").value("input", ""), Member(b, "source").value("line", uint64_t{0})};
    if (!MakeFact(*info, b.value("printed", ""), &entry.value, error)) {
      *error = "budget " + info->name + ": " + *error;
      return false;
    }
    budget->push_back(std::move(entry));
  }
  return true;
}

bool ReadIncident(const json& j, int input_offset, Incident* i, std::string* error) {
  i->kind = j.value("kind", "");
  i->code = j.value("code", "");
  i->title = j.value("title", "");
  i->match = j.value("match", 1.0);
  auto occurrences = j.find("occurrences");
  if (occurrences != j.end() && !(occurrences->is_number_integer() && occurrences->get<int64_t>() >= 1)) {
    *error = "occurrences must be a whole number of 1 or more";
    return false;
  }
  i->occurrences = j.value("occurrences", uint64_t{1});
  if (!ReadSightings(Member(j, "seen"), &i->seen, error)) return false;
  const json& first = Member(j, "first");
  i->first.input = first.value("input", "");
  i->first.line = first.value("line", uint64_t{0});
  i->first_who = first.value("who", "");
  i->record = j.value("record", false);
  i->joins = j.value("joins", std::vector<std::string>{});
  for (const auto& r : j.value("records", json::array()))
    i->records.push_back(Location{r.value("input", ""), r.value("line", uint64_t{0})});
  for (const auto& v : j.value("replicas", json::array())) i->replicas.insert(v.get<int64_t>());
  for (const auto& v : j.value("partitions", json::array())) i->partitions.insert(v.get<int64_t>());
  for (const auto& v : j.value("ranks", json::array())) i->ranks.insert(v.get<int64_t>());
  for (const auto& v : j.value("hosts", json::array())) i->hosts.insert(v.get<std::string>());
  for (const auto& v : j.value("devices", json::array())) i->devices.insert(v.get<std::string>());
  json printed = j.value("printed", json::object());
  if (!ReadFacts(j.value("facts", json::object()), &printed, FindFact, &i->facts, error)) return false;
  for (const auto& a : j.value("allocations", json::array())) {
    Allocation allocation;
    if (!ReadFacts(a, nullptr, FindAllocationField, &allocation.fields, error)) return false;
    i->allocations.push_back(std::move(allocation));
  }
  if (!ReadListingSummary(j, i, error)) return false;
  if (const auto series = j.find("series"); series != j.end() && series->is_object()) {
    MemorySeries& s = i->series;
    s.name = series->value("name", "");
    s.key = series->value("key", "");
    s.host = series->value("host", "");
    s.figures = series->value("samples", uint64_t{0});
    s.limit_bytes =
        series->value("limit_bytes", json(-1)).is_number() ? series->value("limit_bytes", int64_t{-1}) : -1;
    s.first = Location{Member(*series, "first").value("input", ""),
                       Member(*series, "first").value("line", uint64_t{0})};
    s.last = Location{Member(*series, "last").value("input", ""),
                      Member(*series, "last").value("line", uint64_t{0})};
    s.first_seconds = Seconds(*series, "first_seconds");
    s.last_seconds = Seconds(*series, "last_seconds");
    for (const auto& p : series->value("points", json::array())) {
      s.points.push_back(SeriesPoint{p.at(0).get<uint64_t>(), p.at(1).get<int64_t>()});
    }
  }
  if (const auto history = j.find("history"); history != j.end() && history->is_object()) {
    i->history.compiles = history->value("compiles", uint64_t{0});
    i->history.first_compile_line = history->value("first_compile_line", uint64_t{0});
    i->history.steps = history->value("steps", uint64_t{0});
    i->history.last_step_line = history->value("last_step_line", uint64_t{0});
  }
  ReadAftermath(j, &i->after);
  ReadPhase(Member(j, "phase"), &i->phase);
  if (!ReadBudget(j, &i->budget, error)) return false;
  for (const auto& o : j.value("outliers", json::array())) {
    Outlier outlier;
    outlier.where = Location{o.value("input", ""), o.value("line", uint64_t{0})};
    outlier.who = o.value("who", "");
    outlier.differences = o.value("differences", std::vector<std::string>{});
    json printed_values = o.value("printed", json::object());
    if (!ReadFacts(o.value("facts", json::object()), &printed_values, FindFact, &outlier.values, error))
      return false;
    i->outliers.push_back(std::move(outlier));
  }
  i->excerpt = j.value("excerpt", std::vector<std::string>{});
  i->excerpt_total = j.value("excerpt_lines", uint64_t{i->excerpt.size()});
  i->first_input_index = input_offset;
  return true;
}

// What ReadWithinBounds changed of a report as read.
struct Bounded {
  uint64_t strings_cut = 0;
  uint64_t longest = 0;  // the longest string cut, in bytes
  std::string first;     // where the first was cut: "/incidents/3", or empty for the rest of the report
  std::string reading;   // where the string being read is
};

// The longest string a report of a scan holds: a line of the log is read up to this.
constexpr size_t kMaxReportString = LineReader::kDefaultMaxLine;

// Makes j safe to convert, in place:
// - Floats no integer field can hold become 0: oomlens writes counts and sizes as
//   integers, and converting a negative or huge float to an integer is undefined
//   (report_fuzzer: "partitions": [-1e300]). Fractions (confidence, shares) stay.
// - A string longer than any line a scan reads came from no scan: it is cut there,
//   at a character's start (attack review Q-H: one 200 MiB title took 1 GB to merge
//   and was printed whole).
void ReadWithinBounds(json* j, Bounded* bounded) {
  if (j->is_number_float()) {
    double v = j->get<double>();
    if (!(v >= 0 && v < 9.2e18)) *j = 0.0;
  } else if (j->is_string() && j->get_ref<const std::string&>().size() > kMaxReportString) {
    std::string& text = j->get_ref<std::string&>();
    if (bounded->strings_cut++ == 0) bounded->first = bounded->reading;
    bounded->longest = std::max<uint64_t>(bounded->longest, text.size());
    size_t end = kMaxReportString;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;  // not mid-character
    text.resize(end);
    text.shrink_to_fit();
  } else if (j->is_structured()) {
    for (auto& item : *j) ReadWithinBounds(&item, bounded);
  }
}

// The warning for the strings cut, if any.
void ReportCutStrings(const Bounded& bounded, std::vector<Problem>* problems) {
  if (bounded.strings_cut == 0) return;
  problems->push_back(Problem{
      Problem::Severity::kWarning, bounded.first.empty() ? "the report" : "the report's " + bounded.first,
      std::to_string(bounded.strings_cut) + (bounded.strings_cut == 1 ? " string" : " strings") +
          " longer than " + FormatSize(static_cast<int64_t>(kMaxReportString)) + " (the longest " +
          FormatSize(static_cast<int64_t>(bounded.longest)) +
          ") cut to that: no line oomlens reads is longer",
      "the report was not written by an oomlens scan, or was edited; the rest of it is read as it is"});
}

// The inputs of a report, each placed by name (a name given twice: its last input).
struct ReportInputs {
  std::vector<InputSummary> list;
  std::unordered_map<std::string, int> index;
  bool read = false;

  void Read(json& j, Bounded* bounded) {
    ReadWithinBounds(&j, bounded);
    list.clear();
    for (const auto& in : j) {
      list.push_back(InputSummary{in.value("name", ""), in.value("lines", uint64_t{0}),
                                  in.value("bytes", uint64_t{0}), in.value("ok", true),
                                  in.value("record", "")});
    }
    index.clear();
    for (size_t n = 0; n < list.size(); ++n) index.emplace(list[n].name, static_cast<int>(n));  // the first
    read = true;
  }
  // Sets the input indices of an incident read back: its first input by name, and
  // where it was seen when that list is valid (else only its first input: an older or
  // edited report).
  void Place(Incident* incident) const {
    auto it = index.find(incident->first.input);
    if (it != index.end()) incident->first_input_index = it->second;
    Sightings& seen = incident->seen;
    bool valid = !seen.inputs.empty() && std::is_sorted(seen.inputs.begin(), seen.inputs.end()) &&
                 seen.inputs.front() >= 0 && seen.inputs.back() < static_cast<int>(list.size());
    if (!valid) seen.inputs = {incident->first_input_index};
    // One file given twice has one name: the incident's first input is where it was seen first.
    if (!std::binary_search(seen.inputs.begin(), seen.inputs.end(), incident->first_input_index))
      incident->first_input_index = seen.inputs.front();
    seen.last_input = seen.inputs.back();
    auto last = index.find(incident->after.last.input);
    incident->after.last_input_index = last != index.end() ? last->second : seen.last_input;
  }
};

// The incidents of a report, each read as the parser closes it and dropped from
// the document: the whole document took about ten times its text (2.69 GB for a
// 512 MiB report). An incident of the same group key as one read before is folded
// into it, and past kMaxIncidents distinct ones only counted, as a scan does: a
// million incidents took 3.5 GB however few were distinct (attack review R1).
// Placing an incident needs the inputs, which RenderJson writes first; a report
// whose incidents come first (`jq -S` sorts the keys) is parsed a second time for
// them (ParseJsonReport). Errors are kept for after the schema version is checked.
class IncidentReader {
 public:
  explicit IncidentReader(ReportInputs* inputs) : inputs_(*inputs) {}
  bool operator()(int depth, json::parse_event_t event, json& parsed) {
    if (depth == 1 && event == json::parse_event_t::key) key_ = parsed.get<std::string>();
    if (depth == 1 && event == json::parse_event_t::array_start && key_ == "incidents") in_array_ = true;
    bool element_end = event == json::parse_event_t::object_end || event == json::parse_event_t::array_end ||
                       event == json::parse_event_t::value;
    if (depth == 1 && element_end && key_ == "inputs") ReadInputs(parsed);
    if (depth == 1 && event == json::parse_event_t::array_end) in_array_ = false;
    if (depth != 2 || !in_array_ || !element_end) return true;
    if (!inputs_.read) {
      incidents_before_inputs = true;
      return false;
    }
    bounded.reading = "/incidents/" + std::to_string(count_);
    ReadWithinBounds(&parsed, &bounded);
    bounded.reading.clear();
    Read(parsed);
    return false;  // not kept in the document
  }
  std::vector<Incident> incidents;
  FoldedEvents folded;  // the incidents past kMaxIncidents distinct ones
  Bounded bounded;      // what was cut of the inputs and incidents read
  bool incidents_before_inputs = false;
  std::string error;

 private:
  void ReadInputs(json& j) {
    if (inputs_.read) return;  // "inputs" given twice: the first
    try {
      inputs_.Read(j, &bounded);
    } catch (const json::exception& e) {
      if (error.empty()) error = std::string("/inputs: malformed report: ") + e.what();
    }
  }
  void Read(const json& j) {
    size_t k = count_++;
    if (!error.empty()) return;
    Incident incident;
    try {
      if (!j.is_object()) error = "not an object";
      if (error.empty() && ReadIncident(j, 0, &incident, &error)) Keep(std::move(incident));
    } catch (const json::exception& e) {
      error = std::string("malformed report: ") + e.what();
    }
    if (!error.empty()) error = "/incidents/" + std::to_string(k) + ": " + error;
  }
  void Keep(Incident&& incident) {
    inputs_.Place(&incident);
    std::string key = GroupKey(incident.kind, incident.facts, incident.record);
    auto it = index_.find(key);
    if (it == index_.end() && incidents.size() >= kMaxIncidents) {
      folded.Add(incident.kind, incident.occurrences, incident.first, incident.seen.inputs);
    } else if (it == index_.end()) {
      index_.emplace(std::move(key), incidents.size());
      incidents.push_back(std::move(incident));
    } else {
      Incident& kept = incidents[it->second];
      if (FirstSeenBefore(incident, kept)) std::swap(incident, kept);  // the earlier one stays first
      MergeIncident(std::move(incident), &kept);
    }
  }
  ReportInputs& inputs_;
  std::string key_;  // the member of the document being read
  bool in_array_ = false;
  size_t count_ = 0;
  std::unordered_map<std::string, size_t> index_;  // group key -> incidents position
};

// The value of the four hex digits of a \u escape at text[at] ("\\uD800"); -1 if none.
int EscapedUnit(std::string_view text, size_t at) {
  if (at + 6 > text.size() || text[at] != '\\' || text[at + 1] != 'u') return -1;
  int unit = 0;
  for (size_t k = at + 2; k < at + 6; ++k) {
    char c = text[k];
    int digit = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
    if (digit < 0) return -1;
    unit = unit * 16 + digit;
  }
  return unit;
}

// JSON's grammar allows a \u escape of half a surrogate pair (Python's json writes
// "\ud800" for a lone surrogate), which the parser refuses: each such escape reads
// as U+FFFD, as an invalid UTF-8 byte does (attack review K5). text is returned as
// it is, uncopied, when it holds none.
std::string_view WithoutLoneSurrogates(std::string_view text, std::string* storage) {
  std::string* out = nullptr;
  for (size_t at = text.find("\\u"); at != std::string_view::npos; at = text.find("\\u", at + 2)) {
    size_t backslashes = 0;  // an escaped backslash before 'u' is no escape
    while (at >= backslashes + 1 && text[at - backslashes - 1] == '\\') ++backslashes;
    if (backslashes % 2 == 1) continue;
    int unit = EscapedUnit(text, at);
    if (unit < 0xD800 || unit > 0xDFFF) continue;
    int low = EscapedUnit(text, at + 6);
    if (unit < 0xDC00 && low >= 0xDC00 && low <= 0xDFFF) {  // a pair: keep both
      at += 6;
      continue;
    }
    if (!out) out = &(*storage = std::string(text));
    out->replace(at, 6, "\\ufffd");
    text = *out;
  }
  return text;
}

// "memory_records": incidents of memory held, each placed among the inputs; at
// most kMaxIncidents (a record is one input's, never folded).
bool ReadMemoryRecords(const json& doc, const ReportInputs& inputs, std::vector<Incident>* out,
                       std::string* error) {
  auto found = doc.find("memory_records");
  if (found == doc.end()) return true;
  const json& records = *found;
  if (!records.is_array()) {
    *error = "/memory_records: not an array";
    return false;
  }
  for (size_t k = 0; k < records.size() && k < kMaxIncidents; ++k) {
    Incident memory;
    if (!records[k].is_object() || !ReadIncident(records[k], 0, &memory, error)) {
      *error = "/memory_records/" + std::to_string(k) + ": " + (error->empty() ? "not an object" : *error);
      return false;
    }
    inputs.Place(&memory);
    out->push_back(std::move(memory));
  }
  return true;
}

}  // namespace

bool ParseJsonReport(std::string_view text, Report* report, std::string* error) {
  std::string mended;
  text = WithoutLoneSurrogates(text, &mended);
  if (!JsonDepthWithin(text)) {
    *error = "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels: not a report oomlens wrote";
    return false;
  }
  ReportInputs inputs;
  IncidentReader first(&inputs);
  auto parse = [&text](IncidentReader* r) {
    json::parser_callback_t read_incidents = [r](int depth, json::parse_event_t event, json& parsed) {
      return (*r)(depth, event, parsed);
    };
    return json::parse(text.begin(), text.end(), read_incidents, /*allow_exceptions=*/false);
  };
  json doc = parse(&first);
  if (doc.is_discarded() || !doc.is_object()) {
    *error = "not a JSON document";
    return false;
  }
  auto version = doc.find("schema_version");
  if (version == doc.end() || !version->is_number_integer() || version->get<int64_t>() != 1) {
    *error = "not an oomlens report of schema version 1 (\"schema_version\" missing or different)";
    return false;
  }
  std::optional<IncidentReader> second;
  if (first.incidents_before_inputs && first.error.empty()) {  // the inputs are known now
    inputs.read = true;                                        // (or there are none)
    parse(&second.emplace(&inputs));
  }
  IncidentReader& reader = second ? *second : first;
  if (doc.contains("incidents") && !doc["incidents"].is_array()) reader.error = "/incidents: not an array";
  if (!reader.error.empty()) {
    *error = reader.error;
    return false;
  }
  Bounded bounded = reader.bounded;
  ReadWithinBounds(&doc, &bounded);
  try {
    if (!ReadMemoryRecords(doc, inputs, &report->memory_records, error)) return false;
    report->inputs = std::move(inputs.list);
    report->incidents = std::move(reader.incidents);
    for (const auto& p : doc.value("problems", json::array())) {
      report->problems.push_back(Problem{
          p.value("severity", "") == "error" ? Problem::Severity::kError : Problem::Severity::kWarning,
          p.value("where", ""), p.value("message", ""), p.value("help", "")});
    }
    if (!ReadNotKept(doc, report->inputs.size(), &report->not_kept, error)) return false;
    for (const auto& b : doc.value("budgets", json::array())) {
      if (!b.is_object()) continue;
      InputBudget budget{b.value("input", ""), {}};
      if (!ReadBudget(b, &budget.entries, error)) return false;
      report->budgets.push_back(std::move(budget));
    }
    report->not_kept.Add(reader.folded.not_kept, 0);
    reader.folded.Report(&report->problems);
    ReportCutStrings(bounded, &report->problems);
  } catch (const json::exception& e) {
    *error = std::string("malformed report: ") + e.what();
    return false;
  }
  return true;
}

}  // namespace oomlens
