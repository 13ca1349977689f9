// SummarizeFleet: the incidents of a merged report grouped into failures by a
// fingerprint that holds across jobs, and counted by cause, kind, chip and day.
#include "oomlens/fleet.h"

#include <algorithm>
#include <map>

#include "core/compare/fleet_keys.h"
#include "core/model/fact_values.h"
#include "core/model/hash.h"

namespace oomlens {
namespace {

constexpr size_t kTopPrograms = 10;

std::string ChipOf(const Incident& i) {
  std::string chip = FactTextIn(i.facts, "chip");
  if (chip.empty()) chip = FactTextIn(i.derived, "chip");
  return chip.empty() ? "unknown" : chip;
}

std::string FailureFingerprint(const Incident& i, const std::string& message) {
  Fnv1a hash;
  for (const std::string& field : {i.kind, FactTextIn(i.facts, "program"), i.diagnosis.best.cause,
                                   FactTextIn(i.facts, "memory_space"), message}) {
    hash.Add(field).Add("\x1f");
  }
  return hash.Hex();
}

// The ranges of the incident's figures widen the failure's, in the order of kRangedFacts.
void Spread(const Sightings& seen, FleetFailure* failure) {
  for (const char* name : Sightings::kRangedFacts) {
    auto range = seen.ranges.find(name);
    if (range == seen.ranges.end()) continue;
    auto figure = std::find_if(failure->figures.begin(), failure->figures.end(),
                               [name](const FleetFigure& f) { return f.name == name; });
    if (figure == failure->figures.end()) {
      failure->figures.push_back(FleetFigure{name, range->second.min, range->second.max});
      continue;
    }
    figure->min = std::min(figure->min, range->second.min);
    figure->max = std::max(figure->max, range->second.max);
  }
}

// A failure under construction: the jobs of its incidents, not yet made unique.
struct Gathered {
  FleetFailure failure;
  std::vector<int> jobs;
  std::map<std::string, uint64_t> days;
};

FleetFailure NewFailure(const Incident& i, const std::string& fingerprint, std::string message) {
  FleetFailure f;
  f.fingerprint = fingerprint;
  f.kind = i.kind;
  f.code = i.code;
  f.title = i.title;
  f.program = FactTextIn(i.facts, "program");
  f.cause = i.diagnosis.best.cause;
  f.memory_space = FactTextIn(i.facts, "memory_space");
  f.chip = ChipOf(i);
  f.message = std::move(message);
  f.summary = i.diagnosis.summary;
  f.advice = i.diagnosis.advice;
  return f;
}

void Add(const Incident& i, const YearGuess& year, Gathered* g) {
  FleetFailure& f = g->failure;
  ++f.incidents;
  f.occurrences += i.occurrences;
  g->jobs.insert(g->jobs.end(), i.seen.inputs.begin(), i.seen.inputs.end());
  int job = i.first_input_index;  // the job its first timestamp was read in
  std::string first = year.Dated(i.seen.first_time, job), last = year.Dated(i.seen.last_time, job);
  if (!first.empty() && (f.first_time.empty() || first < f.first_time)) f.first_time = first;
  f.last_time = std::max(f.last_time, last);
  for (const auto& [day, count] : i.seen.days) g->days[year.Dated(day, job)] += count;
  Spread(i.seen, &f);
}

void SortUnique(std::vector<int>* v) {
  std::sort(v->begin(), v->end());
  v->erase(std::unique(v->begin(), v->end()), v->end());
}

// Totals under keys: failures, jobs (each counted once) and occurrences.
class Tally {
 public:
  void Add(const std::string& key, const Gathered& g) {
    Entry& e = entries_[key];
    ++e.total.failures;
    e.total.occurrences += g.failure.occurrences;
    e.jobs.insert(e.jobs.end(), g.jobs.begin(), g.jobs.end());
  }
  void AddDay(const std::string& day, uint64_t occurrences) {
    Entry& e = entries_[day];
    ++e.total.failures;
    e.total.occurrences += occurrences;
  }
  /// Most jobs first (then occurrences, then key); by_key: in key order.
  std::vector<FleetTotal> Take(bool by_key, size_t max) {
    std::vector<FleetTotal> out;
    for (auto& [key, e] : entries_) {
      SortUnique(&e.jobs);
      e.total.key = key;
      e.total.jobs = e.jobs.size();
      out.push_back(e.total);
    }
    if (!by_key) {
      std::stable_sort(out.begin(), out.end(), [](const FleetTotal& a, const FleetTotal& b) {
        return a.jobs != b.jobs ? a.jobs > b.jobs : a.occurrences > b.occurrences;
      });
    }
    if (out.size() > max) out.resize(max);
    return out;
  }

 private:
  struct Entry {
    FleetTotal total;
    std::vector<int> jobs;
  };
  std::map<std::string, Entry> entries_;
};

std::vector<Gathered> GatherFailures(const Report& merged) {
  std::vector<Gathered> gathered;
  std::map<std::string, size_t> index;
  YearGuess year(merged);
  for (const Incident& i : merged.incidents) {
    std::string message = MaskedMessage(i);
    std::string fingerprint = FailureFingerprint(i, message);
    auto [it, added] = index.emplace(fingerprint, gathered.size());
    if (added) gathered.push_back(Gathered{NewFailure(i, fingerprint, std::move(message)), {}, {}});
    Add(i, year, &gathered[it->second]);
  }
  int inputs = static_cast<int>(merged.inputs.size());
  for (Gathered& g : gathered) {
    SortUnique(&g.jobs);
    g.jobs.erase(
        std::remove_if(g.jobs.begin(), g.jobs.end(), [inputs](int k) { return k < 0 || k >= inputs; }),
        g.jobs.end());
    g.failure.jobs = g.jobs.size();
    for (size_t k = 0; k < g.jobs.size() && k < FleetFailure::kMaxJobsNamed; ++k)
      g.failure.some_jobs.push_back(merged.inputs[static_cast<size_t>(g.jobs[k])].name);
  }
  std::stable_sort(gathered.begin(), gathered.end(), [](const Gathered& a, const Gathered& b) {
    if (a.failure.jobs != b.failure.jobs) return a.failure.jobs > b.failure.jobs;
    if (a.failure.occurrences != b.failure.occurrences) return a.failure.occurrences > b.failure.occurrences;
    return a.failure.fingerprint < b.failure.fingerprint;
  });
  return gathered;
}

void CountInputs(const Report& merged, const std::vector<Gathered>& gathered, FleetReport* fleet) {
  fleet->jobs = merged.inputs.size();
  for (const auto& in : merged.inputs) {
    if (in.ok) continue;
    ++fleet->jobs_unreadable;
    fleet->unreadable.push_back(in.name);
  }
  std::vector<int> hit;
  for (const Gathered& g : gathered) hit.insert(hit.end(), g.jobs.begin(), g.jobs.end());
  hit.insert(hit.end(), merged.not_kept.inputs.begin(), merged.not_kept.inputs.end());  // in range: read_json
  SortUnique(&hit);
  fleet->jobs_with_oom = hit.size();
  fleet->problems = merged.problems;
  std::stable_partition(fleet->problems.begin(), fleet->problems.end(),
                        [](const Problem& p) { return p.severity == Problem::Severity::kError; });
  fleet->interrupted = merged.interrupted;
  fleet->occurrences_not_grouped = merged.not_kept.events;
}

}  // namespace

FleetReport SummarizeFleet(const Report& merged) {
  FleetReport fleet;
  std::vector<Gathered> gathered = GatherFailures(merged);
  CountInputs(merged, gathered, &fleet);
  Tally causes, kinds, chips, days, programs;
  fleet.occurrences = fleet.occurrences_not_grouped;  // then every failure's own
  for (const Gathered& g : gathered) {
    const FleetFailure& f = g.failure;
    fleet.occurrences += f.occurrences;
    causes.Add(f.cause, g);
    kinds.Add(f.kind, g);
    chips.Add(f.chip, g);
    if (!f.program.empty()) programs.Add(f.program, g);
    for (const auto& [day, count] : g.days) days.AddDay(day, count);
    fleet.failures.push_back(f);
  }
  const size_t all = static_cast<size_t>(-1);
  fleet.by_cause = causes.Take(false, all);
  fleet.by_kind = kinds.Take(false, all);
  fleet.by_chip = chips.Take(false, all);
  fleet.by_day = days.Take(true, all);
  fleet.top_programs = programs.Take(false, kTopPrograms);
  return fleet;
}

}  // namespace oomlens
