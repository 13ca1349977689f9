// Events -> incidents: the same failure printed by many replicas, partitions,
// hosts, devices or ranks, or repeated by retries and re-raises, is one incident.
// Events belong together when kind, program, shape and the sizes that identify
// the failure (requested, used, limit) agree; other differing numbers make
// outliers (so host OOM kills of several processes are one episode, each kill
// an outlier with its pid).
#ifndef OOMLENS_CORE_GROUPING_H_
#define OOMLENS_CORE_GROUPING_H_

#include <map>
#include <string>
#include <vector>

#include "core/model/event.h"
#include "oomlens/report.h"

namespace oomlens {

class IncidentGrouper {
 public:
  /// Adds an event (incrementally: memory grows with incidents, not events).
  void Add(Event&& event);
  /// The incidents, in order of first occurrence.
  std::vector<Incident> Take();

 private:
  std::map<std::string, size_t> index_;  // group key -> incidents_ position
  std::vector<Incident> incidents_;
};

/// The key events are grouped by.
std::string GroupKey(const Event& event);

/// Folds an incident of a later input into one of the same key: counts and
/// identity sets add up; differing numbers become outliers.
void MergeIncident(Incident&& from, Incident* into);

}  // namespace oomlens

#endif  // OOMLENS_CORE_GROUPING_H_
