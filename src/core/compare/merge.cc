#include "oomlens/merge.h"

#include <algorithm>
#include <map>

#include "core/analyze/finish.h"
#include "core/analyze/grouping.h"
#include "core/rules/rule_data.h"

namespace oomlens {
namespace {

// The file name without its directory and log/compression extensions:
// "logs/worker-3.log.gz" -> "worker-3".
std::string FileStem(const std::string& path) {
  std::string name =
      path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  for (const char* ext : {".gz", ".zst", ".zstd", ".log", ".txt", ".json", ".jsonl", ".out", ".err"}) {
    std::string e = ext;
    if (name.size() > e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0)
      name.resize(name.size() - e.size());
  }
  return name;
}

// Whether an input's name is a file's: <stdin>, <paste>, <exception> are not.
bool NamesAFile(const std::string& name) { return !name.empty() && name.front() != '<'; }

// With several parts, an incident of a part that read one file and names no host
// comes from that file: the file's name (its stem) is its host, so incidents
// that group across files say where they were seen (docs/cli.md, "Several files").
void NameHostsAfterTheirFile(Report* part) {
  if (part->inputs.size() != 1 || !NamesAFile(part->inputs[0].name) || !part->inputs[0].record.empty())
    return;
  std::string host = FileStem(part->inputs[0].name);
  auto with_host = [&host](std::string* who) { *who = "host " + host + (who->empty() ? "" : ", " + *who); };
  for (auto& incident : part->incidents) {
    if (!incident.hosts.empty()) continue;
    incident.hosts.insert(host);
    with_host(&incident.first_who);
    for (auto& outlier : incident.outliers) with_host(&outlier.who);
  }
}

// An incident of a part whose inputs come after `offset` inputs of the merge.
void PlaceAfter(int offset, Incident* incident) {
  incident->first_input_index += offset;
  for (int& index : incident->seen.inputs) index += offset;
  incident->seen.last_input += offset;
  if (incident->after.last_input_index >= 0) incident->after.last_input_index += offset;
}

}  // namespace

struct ReportMerger::State {
  Report merged;
  std::map<std::string, size_t> index;   // incident key -> merged.incidents position
  FoldedEvents folded;                   // incidents past kMaxIncidents: their events counted
  EventsNotKept carried;                 // what the parts could not keep (each part warned of it)
  uint64_t memory_records_not_kept = 0;  // records of memory held past kMaxIncidents
};

ReportMerger::ReportMerger(const RuleSet& rules, std::string chip, bool several_parts)
    : rules_(rules),
      chip_(std::move(chip)),
      several_parts_(several_parts),
      state_(std::make_unique<State>()) {}

ReportMerger::~ReportMerger() = default;

void ReportMerger::Add(Report&& part) {
  Report& merged = state_->merged;
  if (several_parts_) NameHostsAfterTheirFile(&part);
  int offset = static_cast<int>(merged.inputs.size());
  for (auto& in : part.inputs) merged.inputs.push_back(std::move(in));
  for (auto& p : part.problems) merged.problems.push_back(std::move(p));
  for (auto& b : part.budgets) merged.budgets.push_back(std::move(b));  // each names its input
  merged.interrupted = merged.interrupted || part.interrupted;
  state_->carried.Add(part.not_kept, offset);
  for (auto& memory : part.memory_records) {  // never grouped: each is one record of one input
    if (merged.memory_records.size() >= kMaxIncidents) {
      ++state_->memory_records_not_kept;
      continue;
    }
    PlaceAfter(offset, &memory);
    merged.memory_records.push_back(std::move(memory));
  }
  // Incidents of one part in order of first occurrence, so earlier inputs come first.
  std::stable_sort(part.incidents.begin(), part.incidents.end(), FirstSeenBefore);
  for (auto& incident : part.incidents) {
    PlaceAfter(offset, &incident);
    std::string key = GroupKey(incident.kind, incident.facts, incident.record);
    auto it = state_->index.find(key);
    if (it == state_->index.end() && merged.incidents.size() >= kMaxIncidents) {
      state_->folded.Add(incident.kind, incident.occurrences, incident.first, incident.seen.inputs);
      continue;
    }
    if (it == state_->index.end()) {
      state_->index[key] = merged.incidents.size();
      merged.incidents.push_back(std::move(incident));
    } else {
      MergeIncident(std::move(incident), &merged.incidents[it->second]);
    }
  }
}

Report ReportMerger::Finish() {
  Report merged = std::move(state_->merged);
  size_t kept = 0;
  for (Incident& incident : merged.incidents) kept = KeepListingWithinCap(kept, &incident, &state_->folded);
  state_->folded.Report(&merged.problems);
  if (state_->memory_records_not_kept > 0) {
    merged.problems.push_back(Problem{Problem::Severity::kWarning, "oomlens",
                                      std::to_string(state_->memory_records_not_kept) +
                                          " records of memory held were read but not kept: a report keeps " +
                                          std::to_string(kMaxIncidents),
                                      "scan the records with the logs they belong to in smaller sets"});
  }
  merged.not_kept = std::move(state_->carried);
  merged.not_kept.Add(state_->folded.not_kept, 0);
  FinishReport(RuleDataOf(rules_), chip_, &merged);
  return merged;
}

Report Refinish(Report report, const RuleSet& rules, const std::string& chip) {
  ReportMerger merger(rules, chip, /*several_parts=*/false);
  merger.Add(std::move(report));
  return merger.Finish();
}

Report MergeReports(std::vector<Report> parts, const RuleSet& rules, const std::string& chip) {
  ReportMerger merger(rules, chip, parts.size() > 1);
  for (auto& part : parts) merger.Add(std::move(part));
  return merger.Finish();
}

}  // namespace oomlens
