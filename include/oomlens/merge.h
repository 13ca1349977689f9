// Combining reports made separately (per file with -j, per shard or host by a
// batch job) into one, as if one scan had read every input in order.
//
//   std::vector<oomlens::Report> parts = ...;   // in input order
//   oomlens::Report all = oomlens::MergeReports(std::move(parts), rules, "");
#ifndef OOMLENS_MERGE_H_
#define OOMLENS_MERGE_H_

#include <memory>
#include <string>
#include <vector>

#include "oomlens/report.h"
#include "oomlens/rules.h"

namespace oomlens {

/// Merges parts (each a finished report of one or more inputs, in order):
/// inputs are concatenated, incidents regrouped across parts, then facts
/// derived, causes decided and consequences correlated again with rules.
Report MergeReports(std::vector<Report> parts, const RuleSet& rules, const std::string& chip);

/// A report read back (a --format json file, a Python object) and finished again as
/// if scanned now: its facts derived and causes decided with these rules and chip.
Report Refinish(Report report, const RuleSet& rules, const std::string& chip);

/// MergeReports one part at a time, so that a part can be dropped once added
/// (merging many large reports holds one of them, not all).
class ReportMerger {
 public:
  /// several_parts: whether more than one part will be added (a one-file part of
  /// several then names its hostless incidents after its file).
  ReportMerger(const RuleSet& rules, std::string chip, bool several_parts);
  ~ReportMerger();
  void Add(Report&& part);
  /// The merged report; the merger is spent.
  Report Finish();

 private:
  struct State;
  const RuleSet& rules_;
  const std::string chip_;
  const bool several_parts_;
  std::unique_ptr<State> state_;
};

}  // namespace oomlens

#endif  // OOMLENS_MERGE_H_
