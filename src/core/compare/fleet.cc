// SummarizeFleet: the incidents of a merged report grouped into failures by a
// fingerprint that holds across jobs, and counted by cause, kind, chip and day.
#include "oomlens/fleet.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include "core/input/line_cleaner.h"
#include "core/model/fact_values.h"
#include "core/model/hash.h"

namespace oomlens {
namespace {

constexpr size_t kMaxMessageBytes = 160;
constexpr size_t kTopPrograms = 10;

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

// "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED ..." -> "RESOURCE_EXHAUSTED ...": the
// class a wrapper raised differs from job to job for one failure.
std::string_view WithoutExceptionClass(std::string_view text) {
  for (;;) {
    size_t colon = text.find(": ");
    if (colon == std::string_view::npos || colon == 0) return text;
    std::string_view name = text.substr(0, colon);
    bool is_class = std::all_of(name.begin(), name.end(), IsNameChar) &&
                    (name.find("Error") != std::string_view::npos || name.find("Exception") != std::string_view::npos);
    if (!is_class) return text;
    text.remove_prefix(colon + 2);
  }
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The length of the number at text[i] ("29.49", "1,024") with the size unit that
// follows it ("G", " GiB", "B"): the unit a log prints changes with the number.
size_t NumberLength(std::string_view text, size_t i) {
  size_t end = i;
  while (end < text.size() && (IsDigit(text[end]) || ((text[end] == '.' || text[end] == ',') &&
                                                       end + 1 < text.size() && IsDigit(text[end + 1])))) {
    ++end;
  }
  size_t unit = end < text.size() && text[end] == ' ' ? end + 1 : end;
  for (std::string_view u : {"KiB", "MiB", "GiB", "TiB", "PiB", "KB", "kB", "MB", "GB", "TB", "PB", "B", "K", "k", "M",
                             "G", "T", "P"}) {
    if (text.substr(unit, u.size()) != u) continue;
    size_t after = unit + u.size();
    if (after < text.size() && (IsNameChar(text[after]) && text[after] != '.')) continue;
    return after - i;
  }
  return end - i;
}

// Numbers (with their size units) masked, runs of blanks made one space, cut at
// max bytes (not inside a character).
std::string Masked(std::string_view text, size_t max) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    bool blank = c == ' ' || c == '\t' || c == '\r' || c == '\n';
    if (IsDigit(c)) {
      out += '#';
      i += NumberLength(text, i) - 1;
    } else if (blank) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
    if (out.size() >= max) break;
  }
  if (out.size() >= max) {  // cut: drop a character the cut split
    out.resize(max);
    size_t lead = out.size();
    while (lead > 0 && (static_cast<unsigned char>(out[lead - 1]) & 0xC0) == 0x80) --lead;
    if (lead > 0 && static_cast<unsigned char>(out[lead - 1]) >= 0xC0) {
      unsigned char c = static_cast<unsigned char>(out[lead - 1]);
      size_t length = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
      if (out.size() - (lead - 1) < length) out.resize(lead - 1);
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

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

// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}

// Timestamps that name no year ("--11-30...", glog's) dated with the year that puts
// them nearest the latest full timestamp of the fleet, so that one day has one key
// and December comes before January. Without a full timestamp they stay as they are.
class YearGuess {
 public:
  explicit YearGuess(const Report& merged) {
    for (const Incident& i : merged.incidents)
      if (!i.seen.last_time.empty() && i.seen.last_time[0] != '-') latest_ = std::max(latest_, i.seen.last_time);
  }
  std::string Dated(const std::string& text) const {
    int month = 0, day = 0, year = 0, anchor_month = 0, anchor_day = 0;
    if (latest_.empty() || std::sscanf(text.c_str(), "--%2d-%2d", &month, &day) != 2) return text;
    if (std::sscanf(latest_.c_str(), "%4d-%2d-%2d", &year, &anchor_month, &anchor_day) != 3) return text;
    int64_t anchor = DaysFromCivil(year, anchor_month, anchor_day);
    int best = year;
    for (int y : {year - 1, year + 1}) {
      if (std::llabs(DaysFromCivil(y, month, day) - anchor) < std::llabs(DaysFromCivil(best, month, day) - anchor))
        best = y;
    }
    return std::to_string(best) + text.substr(1);
  }

 private:
  std::string latest_;
};

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
  std::string first = year.Dated(i.seen.first_time), last = year.Dated(i.seen.last_time);
  if (!first.empty() && (f.first_time.empty() || first < f.first_time)) f.first_time = first;
  f.last_time = std::max(f.last_time, last);
  for (const auto& [day, count] : i.seen.days) g->days[year.Dated(day)] += count;
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
    g.jobs.erase(std::remove_if(g.jobs.begin(), g.jobs.end(), [inputs](int k) { return k < 0 || k >= inputs; }),
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
  SortUnique(&hit);
  fleet->jobs_with_oom = hit.size();
  fleet->problems = merged.problems;
  std::stable_partition(fleet->problems.begin(), fleet->problems.end(),
                        [](const Problem& p) { return p.severity == Problem::Severity::kError; });
  fleet->interrupted = merged.interrupted;
}

}  // namespace

std::string MaskedMessage(const Incident& incident) {
  LineCleaner cleaner;
  std::string joined;
  for (const std::string& line : incident.excerpt) {
    std::string_view message = WithoutExceptionClass(cleaner.Clean(line).message);
    if (!joined.empty()) joined += ' ';
    joined.append(message.data(), message.size());
    if (joined.size() >= 2 * kMaxMessageBytes) break;
  }
  return Masked(joined, kMaxMessageBytes);
}

FleetReport SummarizeFleet(const Report& merged) {
  FleetReport fleet;
  std::vector<Gathered> gathered = GatherFailures(merged);
  CountInputs(merged, gathered, &fleet);
  Tally causes, kinds, chips, days, programs;
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
