#include "core/analyze/finish.h"

#include <algorithm>

#include "core/analyze/correlate.h"
#include "core/analyze/decide.h"
#include "core/analyze/derive.h"
#include "core/analyze/grouping.h"

namespace oomlens {

bool FirstSeenBefore(const Incident& a, const Incident& b) {
  if (a.first_input_index != b.first_input_index) return a.first_input_index < b.first_input_index;
  return a.first.line < b.first.line;
}

bool Explained(const RuleData& rules, const std::string& chip, Incident* incident) {
  DeriveFacts(chip, incident);
  Decide(rules, incident);
  return incident->diagnosis.best.cause != "unknown";
}

namespace {

// Incidents that ended a job before those the job went on after, each part in
// its order; a consequence stays beside its root (consequence_of, renumbered to
// the new places).
void PutEndedFirst(std::vector<Incident>* incidents) {
  std::vector<size_t> order(incidents->size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto ended = [incidents](size_t i) {
    const Incident& incident = (*incidents)[i];
    size_t root = incident.consequence_of;
    return (root != 0 ? (*incidents)[root - 1] : incident).after.ended_job();
  };
  std::stable_partition(order.begin(), order.end(), ended);
  std::vector<size_t> place(order.size());  // old index -> new 1-based number
  for (size_t k = 0; k < order.size(); ++k) place[order[k]] = k + 1;
  std::vector<Incident> reordered;
  reordered.reserve(incidents->size());
  for (size_t i : order) {
    reordered.push_back(std::move((*incidents)[i]));
    size_t& root = reordered.back().consequence_of;
    if (root != 0) root = place[root - 1];
  }
  *incidents = std::move(reordered);
}

}  // namespace

void FinishIncidents(const RuleData& rules, const std::string& chip, std::vector<Incident>* incidents) {
  std::stable_sort(incidents->begin(), incidents->end(), FirstSeenBefore);
  JoinRecords(incidents);       // before deriving: the record's figures are the incident's
  LinkConsequences(incidents);  // before deriving: one failure's two reports pool their facts
  for (auto& incident : *incidents) {
    DeriveFacts(chip, &incident);
    Decide(rules, &incident);
  }
  ShareDiagnoses(incidents);
  PutEndedFirst(incidents);
}

void FinishReport(const RuleData& rules, const std::string& chip, Report* report) {
  JoinMemoryRecords(&report->memory_records, &report->incidents);
  FinishIncidents(rules, chip, &report->incidents);
  for (auto& memory : report->memory_records) DeriveFacts(chip, &memory);
}

}  // namespace oomlens
