#include "core/analyze/grouping.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iterator>

#include "core/analyze/allocation_summary.h"
#include "core/model/fact_values.h"
#include "core/model/from_chars.h"

namespace oomlens {
namespace {

constexpr size_t kMaxOutliers = 20;
const char* const kIdentifyingFacts[] = {"requested_bytes", "used_bytes", "limit_bytes"};

bool ParseId(const std::string& text, int64_t* out) {
  std::optional<int64_t> id = text.size() <= 18 ? ParseInt64(text) : std::nullopt;
  if (!id) return false;
  *out = *id;
  return true;
}

std::string Who(const Event& e) {
  std::string who;
  auto add = [&who](const char* label, const std::string& v) {
    if (!v.empty()) who += (who.empty() ? "" : ", ") + std::string(label) + " " + v;
  };
  add("host", e.host);
  add("replica", e.replica);
  add("partition", e.partition);
  add("device", e.device);
  add("rank", e.rank);
  return who;
}

void SeeDay(const std::string& day, uint64_t count, Sightings* seen) {
  seen->days[day] += count;
  if (seen->days.size() > Sightings::kMaxDays) seen->days.erase(std::prev(seen->days.end()));
}

void SeeInput(int index, Sightings* seen) {
  if (index == seen->last_input) return;
  seen->last_input = index;
  seen->inputs.push_back(index);
}

void SeeRange(const std::string& name, FigureRange range, Sightings* seen) {
  auto [it, added] = seen->ranges.emplace(name, range);
  if (added) return;
  it->second.min = std::min(it->second.min, range.min);
  it->second.max = std::max(it->second.max, range.max);
}

// Whether place (input a_input, line a_line) comes after (b_input, b_line).
bool PlacedAfter(int a_input, uint64_t a_line, int b_input, uint64_t b_line) {
  return a_input != b_input ? a_input > b_input : a_line > b_line;
}

// The event is the incident's last occurrence so far, unless it was placed before the last one seen.
void SeeLast(const Event& e, Aftermath* after) {
  if (PlacedAfter(after->last_input_index, after->last.line, e.input_index, e.where.line)) return;
  after->last = e.where;
  after->last_input_index = e.input_index;
  after->last_seconds = e.time_seconds;
  after->last_host = e.host;
  after->seen_in_input = e.seen_in_input;
  after->seen_in_host = e.seen_in_host;
  after->marked = e.marked;
}

void See(const Event& e, Sightings* seen) {
  SeeInput(e.input_index, seen);
  for (const char* name : Sightings::kRangedFacts) {
    auto it = e.facts.find(name);
    if (it != e.facts.end()) SeeRange(name, FigureRange{it->second.integer, it->second.integer}, seen);
  }
  if (e.time.empty()) return;
  if (seen->first_time.empty() || e.time < seen->first_time) seen->first_time = e.time;
  if (e.time > seen->last_time) seen->last_time = e.time;
  SeeDay(e.time.substr(0, e.time.find('T')), 1, seen);
}

// Sightings of a later part (its inputs after this one's) added to into.
// The inputs stay sorted and each is listed once, whichever of the two was seen first.
void AddSightings(Sightings&& from, Sightings* into) {
  std::vector<int>& inputs = into->inputs;
  bool after = inputs.empty() || from.inputs.empty() || from.inputs.front() > inputs.back();
  inputs.insert(inputs.end(), from.inputs.begin(), from.inputs.end());  // a later part's: the usual case
  if (!after) {
    std::inplace_merge(inputs.begin(), inputs.end() - static_cast<std::ptrdiff_t>(from.inputs.size()),
                       inputs.end());
    inputs.erase(std::unique(inputs.begin(), inputs.end()), inputs.end());
  }
  into->last_input = inputs.empty() ? from.last_input : inputs.back();
  if (!from.first_time.empty() && (into->first_time.empty() || from.first_time < into->first_time))
    into->first_time = from.first_time;
  if (from.last_time > into->last_time) into->last_time = from.last_time;
  for (const auto& [day, count] : from.days) SeeDay(day, count, into);
  for (const auto& [name, range] : from.ranges) SeeRange(name, range, into);
}

void AddIdentity(const Event& e, Incident* incident) {
  int64_t id;
  if (ParseId(e.replica, &id)) incident->replicas.insert(id);
  if (ParseId(e.partition, &id)) incident->partitions.insert(id);
  if (ParseId(e.rank, &id)) incident->ranks.insert(id);
  if (!e.host.empty()) incident->hosts.insert(e.host);
  if (!e.device.empty()) incident->devices.insert(e.device);
}

bool Differs(const FactValue& value, const FactValue& mine) {
  bool numeric = value.type == FactType::kSize || value.type == FactType::kCount;
  return numeric ? std::fabs(Gap(value.integer, mine.integer)) > value.tolerance + mine.tolerance
                 : value.text != mine.text;
}

// Compares facts with the incident's first occurrence; an outlier with the
// differences beyond rounding, and the facts the incident lacks or has less
// precisely merged into it when merge_into is set.
Outlier Compare(const Facts& facts, bool merge_into, Incident* incident) {
  Outlier outlier;
  for (const auto& [name, value] : facts) {
    auto it = incident->facts.find(name);
    if (it == incident->facts.end()) {
      if (merge_into) incident->facts[name] = value;
      continue;
    }
    FactValue& mine = it->second;
    if (Differs(value, mine)) {
      outlier.differences.push_back(name + " " + value.text + " (first: " + mine.text + ")");
      outlier.values[name] = value;
    } else if (merge_into && (value.type == FactType::kSize || value.type == FactType::kCount) &&
               value.tolerance < mine.tolerance) {
      mine = value;
    }
  }
  return outlier;
}

void AddOutlier(Outlier&& outlier, const Location& where, const std::string& who, Incident* incident) {
  if (outlier.differences.empty() || incident->outliers.size() >= kMaxOutliers) return;
  outlier.where = where;
  outlier.who = who;
  incident->outliers.push_back(std::move(outlier));
}

void Merge(const Facts& facts, const Location& where, const std::string& who, Incident* incident) {
  AddOutlier(Compare(facts, true, incident), where, who, incident);
}

// An outlier of another part, compared again with this incident's first
// occurrence: its facts are that part's first with its differences.
void Rebase(Outlier&& outlier, const Facts& part_first, Incident* into) {
  if (outlier.values.empty()) {  // read from a report that did not keep them: kept as it was
    if (into->outliers.size() < kMaxOutliers) into->outliers.push_back(std::move(outlier));
    return;
  }
  Facts facts = part_first;
  for (auto& [name, value] : outlier.values) facts[name] = std::move(value);
  AddOutlier(Compare(facts, false, into), outlier.where, outlier.who, into);
}

}  // namespace

std::string GroupKey(const std::string& kind, const Facts& facts, bool record) {
  std::string key = record ? "record:" + kind : kind;
  for (const char* name : {"program", "shape"}) {
    key += '\x1f';
    auto it = facts.find(name);
    if (it != facts.end()) key += it->second.text;
  }
  for (const char* name : kIdentifyingFacts) {
    key += '\x1f';
    auto it = facts.find(name);
    if (it != facts.end()) key += std::to_string(it->second.integer);
  }
  return key;
}

void FoldedEvents::Add(const std::string& kind, uint64_t count, const Location& where,
                       const std::vector<int>& inputs) {
  if (not_kept.events == 0) first = where;
  not_kept.events += count;
  not_kept.kinds[kind] += count;
  not_kept.inputs.insert(inputs.begin(), inputs.end());
}

void FoldedEvents::AddEntries(uint64_t count, const Location& where) {
  if (entries == 0) first_listing = where;
  entries += count;
  ++listings;
}

void FoldedEvents::Report(std::vector<Problem>* problems) const {
  if (entries > 0) {
    problems->push_back(Problem{
        Problem::Severity::kWarning, first_listing.input + ":" + std::to_string(first_listing.line),
        std::to_string(entries) + " allocation entries of " + std::to_string(listings) +
            (listings == 1 ? " listing" : " listings") + " were read but not kept: a report keeps " +
            std::to_string(kMaxAllocationsPerReport) + " entries in all, the largest of each listing",
        "totals, groups and the largest entries count every entry read (allocation_count says how many)"});
  }
  if (not_kept.events == 0) return;
  std::string kinds_text;
  for (const auto& [kind, count] : not_kept.kinds)
    kinds_text += (kinds_text.empty() ? "" : ", ") + kind + " " + std::to_string(count);
  problems->push_back(
      Problem{Problem::Severity::kWarning, first.input + ":" + std::to_string(first.line),
              std::to_string(not_kept.events) + " events of further incidents were counted but not kept (" +
                  kinds_text + "): a report keeps " + std::to_string(kMaxIncidents) + " distinct incidents",
              "the incidents shown stand; to see the others, scan the part of the log they are in"});
}

Incident IncidentOf(Event&& event) {
  Incident incident;
  See(event, &incident.seen);
  incident.kind = event.kind;
  incident.code = event.code;
  incident.title = event.title;
  incident.signature = event.signature;
  incident.match = event.match;
  incident.occurrences = 1;
  incident.first = event.where;
  incident.first_who = Who(event);
  incident.first_input_index = event.input_index;
  incident.facts = std::move(event.facts);
  incident.excerpt = std::move(event.excerpt);
  incident.excerpt_total = event.excerpt_total;
  incident.allocations = std::move(event.allocations);
  incident.listing_facts = std::move(event.listing_facts);
  incident.allocation_groups = std::move(event.allocation_groups);
  incident.record = event.record;
  incident.joins = std::move(event.joins);
  incident.phase = std::move(event.phase);
  SeeLast(event, &incident.after);
  AddIdentity(event, &incident);
  return incident;
}

void IncidentGrouper::Add(Event&& event) {
  std::string key = GroupKey(event.kind, event.facts, event.record);
  auto it = index_.find(key);
  if (it == index_.end() && incidents_.size() >= kMaxIncidents) {
    folded_.Add(event.kind, 1, event.where, {event.input_index});
    return;
  }
  if (it == index_.end()) {
    index_[key] = incidents_.size();
    uint64_t not_kept = event.entries_not_kept;
    incidents_.push_back(IncidentOf(std::move(event)));
    if (not_kept > 0) folded_.AddEntries(not_kept, incidents_.back().first);
    entries_kept_ = KeepListingWithinCap(entries_kept_, &incidents_.back(), &folded_);
    return;
  }
  Incident& incident = incidents_[it->second];
  ++incident.occurrences;
  incident.match = std::max(incident.match, event.match);  // the surest of its recognitions
  AddIdentity(event, &incident);
  See(event, &incident.seen);
  SeeLast(event, &incident.after);
  if (!HasListing(incident) && (!event.allocations.empty() || !event.listing_facts.empty())) {
    incident.allocations = std::move(event.allocations);
    incident.listing_facts = std::move(event.listing_facts);
    incident.allocation_groups = std::move(event.allocation_groups);
    if (event.entries_not_kept > 0) folded_.AddEntries(event.entries_not_kept, incident.first);
    entries_kept_ = KeepListingWithinCap(entries_kept_, &incident, &folded_);
  }
  Merge(event.facts, event.where, Who(event), &incident);
}

size_t KeepListingWithinCap(size_t kept, Incident* incident, FoldedEvents* folded) {
  size_t room = kept < kMaxAllocationsPerReport ? kMaxAllocationsPerReport - kept : 0;
  size_t dropped = KeepLargestEntries(room, incident);
  if (dropped > 0) folded->AddEntries(dropped, incident->first);
  return kept + incident->allocations.size();
}

void MergeIncident(Incident&& from, Incident* into) {
  into->occurrences += from.occurrences;
  AddSightings(std::move(from.seen), &into->seen);
  into->match = std::max(into->match, from.match);
  into->replicas.insert(from.replicas.begin(), from.replicas.end());
  into->partitions.insert(from.partitions.begin(), from.partitions.end());
  into->ranks.insert(from.ranks.begin(), from.ranks.end());
  into->hosts.insert(from.hosts.begin(), from.hosts.end());
  into->devices.insert(from.devices.begin(), from.devices.end());
  if (!HasListing(*into)) {
    into->allocations = std::move(from.allocations);
    into->allocation_groups = std::move(from.allocation_groups);
    into->listing_facts = std::move(from.listing_facts);
  }
  if (into->series.figures == 0) into->series = std::move(from.series);
  if (PlacedAfter(from.after.last_input_index, from.after.last.line, into->after.last_input_index,
                  into->after.last.line))
    into->after = std::move(from.after);
  into->records.insert(into->records.end(), from.records.begin(), from.records.end());
  if (into->phase.name.empty()) into->phase = std::move(from.phase);
  if (into->budget.empty()) into->budget = std::move(from.budget);
  Merge(from.facts, from.first, from.first_who, into);
  for (auto& outlier : from.outliers) Rebase(std::move(outlier), from.facts, into);
}

namespace {

bool SameRequest(const Incident& record, const Incident& log) {
  auto a = record.facts.find("requested_bytes"), b = log.facts.find("requested_bytes");
  return a != record.facts.end() && b != log.facts.end() && !Differs(a->second, b->second);
}

bool DeviceInCommon(const Incident& a, const Incident& b) {
  if (a.devices.empty() || b.devices.empty()) return true;
  return std::any_of(a.devices.begin(), a.devices.end(),
                     [&b](const std::string& d) { return b.devices.count(d); });
}

// The log's incident a record is of, or nullptr.
Incident* LogIncidentOf(const Incident& record, std::vector<Incident>* incidents) {
  for (auto& log : *incidents) {
    if (!log.record && log.kind == record.kind && SameRequest(record, log) && DeviceInCommon(record, log))
      return &log;
  }
  return nullptr;
}

// A failure a memory record may join: one the log printed (not a record itself),
// with a figure of its own (what it asked for, or what a compile needed), on a
// device in common.
bool Named(const Incident& i, const char* fact) { return i.facts.count(fact) > 0; }

bool MayJoin(const Incident& memory, const Incident& log) {
  bool figure = Named(log, "requested_bytes") || Named(log, "used_bytes");
  bool other_program = Named(memory, "program") && Named(log, "program") &&
                       memory.facts.at("program").text != log.facts.at("program").text;
  if (log.record || !figure || other_program || !DeviceInCommon(memory, log)) return false;
  for (const auto& prefix : memory.joins)
    if (log.kind.rfind(prefix, 0) == 0) return true;
  return false;
}

// The incident a memory record was taken for: the last failure it may join (a
// record saved at the exception is of the failure that ended the job; one that
// names its program, an XLA dump's module file, joins that program's), or nullptr.
Incident* FailureOf(const Incident& memory, std::vector<Incident>* incidents) {
  Incident* last = nullptr;
  for (auto it = incidents->rbegin(); it != incidents->rend(); ++it) {
    if (!MayJoin(memory, *it)) continue;
    if (Named(memory, "program") && Named(*it, "program")) return &*it;  // the same program: MayJoin
    if (!last) last = &*it;
  }
  return last;
}

void JoinRecord(Incident&& record, Incident* into) {
  AddSightings(std::move(record.seen), &into->seen);  // the log says who printed it: its hosts stay
  into->devices.insert(record.devices.begin(), record.devices.end());
  if (HasListing(record)) {  // the allocator's own listing is whole; a log prints a part
    into->allocations = std::move(record.allocations);
    into->allocation_groups = std::move(record.allocation_groups);
    into->listing_facts = std::move(record.listing_facts);
  }
  into->records.push_back(record.first);
  Merge(record.facts, record.first, "the allocator's record", into);
}

}  // namespace

namespace {

// Joins each of *records that find() gives an incident for into it, then drops the
// joined ones. A record is never a target, so the targets stay where they are
// while *records is walked (records and targets may share one vector).
template <typename Find>
void JoinEach(std::vector<Incident>* records, Find find) {
  std::vector<bool> joined(records->size(), false);
  for (size_t r = 0; r < records->size(); ++r) {
    if (Incident* into = find((*records)[r])) {
      JoinRecord(std::move((*records)[r]), into);
      joined[r] = true;
    }
  }
  size_t kept = 0;
  for (size_t r = 0; r < records->size(); ++r) {
    if (joined[r]) continue;
    if (kept != r) (*records)[kept] = std::move((*records)[r]);  // never moved onto itself
    ++kept;
  }
  records->resize(kept);
}

}  // namespace

void JoinMemoryRecords(std::vector<Incident>* memory_records, std::vector<Incident>* incidents) {
  JoinEach(memory_records, [incidents](const Incident& memory) { return FailureOf(memory, incidents); });
}

void JoinRecords(std::vector<Incident>* incidents) {
  JoinEach(incidents, [incidents](const Incident& record) {
    return record.record ? LogIncidentOf(record, incidents) : nullptr;
  });
}

std::vector<Incident> IncidentGrouper::Take() {
  index_.clear();
  return std::move(incidents_);
}

}  // namespace oomlens
