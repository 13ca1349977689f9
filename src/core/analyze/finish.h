// The end of a scan and of a merge, in one place: facts derived, causes decided,
// incidents in report order, consequences marked.
#ifndef OOMLENS_CORE_ANALYZE_FINISH_H_
#define OOMLENS_CORE_ANALYZE_FINISH_H_

#include <string>
#include <vector>

#include "core/rules/rule_data.h"
#include "oomlens/report.h"

namespace oomlens {

/// The order of a report's incidents: the input they were first seen in, then the line.
bool FirstSeenBefore(const Incident& a, const Incident& b);

/// Whether a rule other than the fallback explains the incident (its facts derived
/// and cause decided here): a candidate that is no OOM by itself, such as memory
/// growth with no failure, is kept only then.
bool Explained(const RuleData& rules, const std::string& chip, Incident* incident);

/// Derives every incident's facts (with the chip's memory when named), decides
/// its cause with rules, orders them (those that ended a job first, each part
/// FirstSeenBefore) and marks consequences.
void FinishIncidents(const RuleData& rules, const std::string& chip, std::vector<Incident>* incidents);

/// The end of a scan or merge: memory records joined into the failures they were
/// taken for (JoinMemoryRecords), the incidents finished, the records left over
/// summarised (their listing's facts derived; they have no cause).
void FinishReport(const RuleData& rules, const std::string& chip, Report* report);

}  // namespace oomlens

#endif  // OOMLENS_CORE_ANALYZE_FINISH_H_
