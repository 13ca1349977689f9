// Comparing two runs: which incidents appeared or vanished, how their numbers
// moved (requested, used, limit, program requirement ...), and which listed
// allocations are new, gone, grew or shrank.
//
//   oomlens::ReportDiff d = oomlens::DiffReports(before, after);
//   oomlens::RenderDiffText(d, std::cout);  // oomlens/render.h
#ifndef OOMLENS_DIFF_H_
#define OOMLENS_DIFF_H_

#include <string>
#include <vector>

#include "oomlens/report.h"

namespace oomlens {

/// A size or count that differs between the runs (beyond the rounding of the
/// printed values), or is present in one only.
struct FactChange {
  std::string name;
  bool in_before = false, in_after = false;
  FactValue before, after;
};

/// A listed allocation of either run, matched by operator/label/owner and shape.
struct AllocationChange {
  enum class Status { kNew, kGone, kGrew, kShrank, kPadding };
  std::string key;
  Status status = Status::kNew;
  int64_t before_bytes = -1, after_bytes = -1;      ///< -1: not listed in that run
  int64_t before_padding = -1, after_padding = -1;  ///< -1: not printed
};

struct IncidentDiff {
  enum class Status { kAppeared, kChanged, kVanished, kSame };  ///< in report order
  Status status = Status::kSame;
  std::string kind, code, title, program;
  std::string before_cause, after_cause;  ///< empty on the side it is absent from
  uint64_t before_occurrences = 0, after_occurrences = 0;
  Location before_first, after_first;
  std::vector<FactChange> facts;
  std::vector<AllocationChange> allocations;
};

struct ReportDiff {
  std::string before_name, after_name;
  size_t before_incidents = 0, after_incidents = 0;
  std::vector<IncidentDiff> incidents;  ///< appeared, then changed, vanished, same
  size_t before_records = 0, after_records = 0;
  /// Memory held (a JAX profile, a snapshot's device with no OOM), matched by what
  /// recorded it and its devices: two profiles of one job show what grew between them.
  std::vector<IncidentDiff> memory_records;
};

/// Matches incidents by kind, program and memory space (in order when several
/// share them) and compares them; memory records alike.
ReportDiff DiffReports(const Report& before, const Report& after, const std::string& before_name,
                       const std::string& after_name);

/// "new", "gone", "grew", "shrank", "padding".
const char* StatusName(AllocationChange::Status status);
/// "appeared", "changed", "vanished", "same".
const char* StatusName(IncidentDiff::Status status);

/// "+1.51G (+5%)" between two sizes, or "" when either is missing.
std::string FormatChange(const FactValue& before, const FactValue& after);

}  // namespace oomlens

#endif  // OOMLENS_DIFF_H_
