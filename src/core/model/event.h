// An event: one OOM message (or a listing or warning that joins one) as the
// recogniser read it; figures travel as Figure views instead, before grouping makes incidents of events.
// Internal to the core: reports hold incidents.
#ifndef OOMLENS_CORE_MODEL_EVENT_H_
#define OOMLENS_CORE_MODEL_EVENT_H_

#include <string>
#include <vector>

#include "oomlens/report.h"

namespace oomlens {

/// One OOM message, as recognised on one or more lines.
struct Event {
  std::string signature;  ///< id of the signature that recognised it
  std::string kind;       ///< e.g. tpu_program_load
  std::string code;       ///< e.g. E0101 (may be empty)
  std::string title;
  double match = 1;  ///< how sure the recognition is (the signature's "match")
  Facts facts;       ///< facts of kind kIdentity live in the fields below
  std::string replica, partition, host, device, rank;  ///< empty when not printed
  Location where;
  int input_index = 0;
  std::vector<std::string> excerpt;  ///< the message's lines as printed (the first ones)
  uint64_t excerpt_total = 0;        ///< lines the message spanned
  std::vector<Allocation> allocations;
  /// A listing summarised while it was read (a memory snapshot's blocks): the summary
  /// of every entry, and how many entries past `allocations` were not kept. Empty
  /// and 0 for a listing kept whole, which grouping summarises.
  Facts listing_facts;
  std::vector<AllocationGroup> allocation_groups;
  uint64_t entries_not_kept = 0;
  std::vector<std::string> listings;  ///< ids of listing signatures (dumps) that joined it
  double time_seconds = -1;           ///< its line's timestamp, seconds into the year; -1: none
  std::string time;                   ///< the same as text (TimestampText); "" none
  bool record = false;                ///< read from an allocator's record (a memory snapshot), not a log
  /// Work lines (steps, compiles) its input and its host had shown before it; set by the scanner.
  Aftermath::Mark seen_in_input, seen_in_host;
  bool marked = false;
  Phase phase;  ///< from its family, or the scanner's signs of phase before it (HistoryCollector::Mark)
  std::vector<std::string> joins;  ///< a memory record (no failure in it): the kinds it may join, as prefixes
};

}  // namespace oomlens

#endif  // OOMLENS_CORE_MODEL_EVENT_H_
