// Events -> incidents: the same failure printed by many replicas, partitions,
// hosts, devices or ranks, or repeated by retries and re-raises, is one incident.
// Events belong together when kind, program, shape and the sizes that identify
// the failure (requested, used, limit) agree; other differing numbers make
// outliers (so host OOM kills of several processes are one episode, each kill
// an outlier with its pid).
#ifndef OOMLENS_CORE_ANALYZE_GROUPING_H_
#define OOMLENS_CORE_ANALYZE_GROUPING_H_

#include <map>
#include <string>
#include <vector>

#include "core/model/event.h"
#include "oomlens/report.h"

namespace oomlens {

/// Distinct incidents one report keeps: memory and time stay bounded when a log
/// holds a flood of different failures; events of further incidents are counted.
constexpr size_t kMaxIncidents = 10000;

/// What a report could not keep: events of incidents past kMaxIncidents, and
/// listing entries past kMaxAllocationsPerReport.
struct FoldedEvents {
  EventsNotKept not_kept;              // the events of incidents past kMaxIncidents
  Location first;                      // where the first of them was
  uint64_t entries = 0, listings = 0;  // listing entries dropped, and from how many listings
  Location first_listing;
  /// Counts `count` events of kind read in inputs, the first of them at where.
  void Add(const std::string& kind, uint64_t count, const Location& where, const std::vector<int>& inputs);
  /// Counts `count` entries dropped from the listing of the incident first seen at where.
  void AddEntries(uint64_t count, const Location& where);
  /// Adds to problems the warnings that say so (nothing when nothing was folded).
  void Report(std::vector<Problem>* problems) const;
};

/// Keeps an incident's listing within what kMaxAllocationsPerReport leaves after
/// `kept` entries of earlier listings; counts the entries dropped in folded.
/// Returns `kept` plus the entries this listing keeps.
size_t KeepListingWithinCap(size_t kept, Incident* incident, FoldedEvents* folded);

class IncidentGrouper {
 public:
  /// Adds an event (incrementally: memory grows with incidents, not events).
  void Add(Event&& event);
  /// The incidents, in order of first occurrence.
  std::vector<Incident> Take();
  const FoldedEvents& folded() const { return folded_; }

 private:
  std::map<std::string, size_t> index_;  // group key -> incidents_ position
  std::vector<Incident> incidents_;
  size_t entries_kept_ = 0;  // listing entries, over all incidents
  FoldedEvents folded_;
};

/// The key events are grouped by (and incidents merged by): the kind and the
/// identifying facts, and whether it is an allocator's record (a record joins a
/// log's incident by JoinRecords, adding no occurrence, never by its key).
std::string GroupKey(const std::string& kind, const Facts& facts, bool record);

/// Folds an incident of a later input into one of the same key: counts and
/// identity sets add up; differing numbers become outliers.
void MergeIncident(Incident&& from, Incident* into);

/// Joins each incident read from an allocator's record (a memory snapshot) into the
/// incident a log printed for the same failure: the same kind, the same request
/// within the log's rounding, and a device in common when both name one. The
/// record's exact figures replace the log's rounded ones, its listing replaces the
/// log's, and it adds no occurrence. A record that matches no log's incident stays.
void JoinRecords(std::vector<Incident>* incidents);

/// Joins each memory record (a record with no failure in it: a device memory
/// profile, a snapshot with no OOM in its trace) into the last incident it may
/// join (its joins name the incident's kind; a request printed; a device in
/// common when both name one), as JoinRecords does. The rest stay.
void JoinMemoryRecords(std::vector<Incident>* memory_records, std::vector<Incident>* incidents);

/// The incident of one event (what the grouper makes of an event it has not seen).
Incident IncidentOf(Event&& event);

}  // namespace oomlens

#endif  // OOMLENS_CORE_ANALYZE_GROUPING_H_
