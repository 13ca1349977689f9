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

void FinishIncidents(const RuleData& rules, const std::string& chip, std::vector<Incident>* incidents) {
  std::stable_sort(incidents->begin(), incidents->end(), FirstSeenBefore);
  JoinRecords(incidents);       // before deriving: the record's figures are the incident's
  LinkConsequences(incidents);  // before deriving: one failure's two reports pool their facts
  for (auto& incident : *incidents) {
    DeriveFacts(chip, &incident);
    Decide(rules, &incident);
  }
  ShareDiagnoses(incidents);
}

void FinishReport(const RuleData& rules, const std::string& chip, Report* report) {
  JoinMemoryRecords(&report->memory_records, &report->incidents);
  FinishIncidents(rules, chip, &report->incidents);
  for (auto& memory : report->memory_records) DeriveFacts(chip, &memory);
}

}  // namespace oomlens
