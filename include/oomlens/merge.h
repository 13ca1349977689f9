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
#include "oomlens/scanner.h"

namespace oomlens {

/// Merges parts (each a finished report of one or more inputs, in order):
/// inputs are concatenated, incidents regrouped across parts, then facts
/// derived, causes decided and consequences correlated again with rules.
Report MergeReports(std::vector<Report> parts, const RuleSet& rules, const std::string& chip);

/// One input of ScanEach: a path ("-": the file descriptor stdin_fd) and the host
/// its events without a host tag are from (may be empty).
struct ScanInput {
  std::string path;
  std::string host;
};

/// Scans each input with a scanner of its own (on `jobs` threads), then merges the
/// reports in input order: a file's series, progress and consequences stay in that
/// file, and incidents group across files only by what the merge compares. So -j 1,
/// -j N and `oomlens merge` of per-file reports give the same report. Inputs not
/// begun when options.cancel turns true are not read. *read_all turns false when
/// an input could not be read whole.
Report ScanEach(const std::vector<ScanInput>& inputs, const RuleSet& rules, const ScanOptions& options, int jobs,
                int stdin_fd, bool* read_all);

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
