#include "core/rules/rule_data.h"
#include "core/model/event.h"
#include "oomlens/merge.h"

#include <algorithm>
#include <map>

#include "core/analyze/finish.h"
#include "core/analyze/grouping.h"

namespace oomlens {
namespace {

// The grouping key of an incident: the same fields events are grouped by.
std::string IncidentKey(const Incident& i) {
  Event e;
  e.kind = i.kind;
  e.facts = i.facts;
  return GroupKey(e);
}

}  // namespace

Report MergeReports(std::vector<Report> parts, const RuleSet& rules, const std::string& chip) {
  Report merged;
  std::map<std::string, size_t> index;
  for (auto& part : parts) {
    int offset = static_cast<int>(merged.inputs.size());
    for (auto& in : part.inputs) merged.inputs.push_back(std::move(in));
    for (auto& p : part.problems) merged.problems.push_back(std::move(p));
    merged.interrupted = merged.interrupted || part.interrupted;
    // Incidents of one part in order of first occurrence, so earlier inputs come first.
    std::stable_sort(part.incidents.begin(), part.incidents.end(), FirstSeenBefore);
    for (auto& incident : part.incidents) {
      incident.first_input_index += offset;
      std::string key = IncidentKey(incident);
      auto it = index.find(key);
      if (it == index.end()) {
        index[key] = merged.incidents.size();
        merged.incidents.push_back(std::move(incident));
      } else {
        MergeIncident(std::move(incident), &merged.incidents[it->second]);
      }
    }
  }
  FinishIncidents(RuleDataOf(rules), chip, &merged.incidents);
  return merged;
}

}  // namespace oomlens
