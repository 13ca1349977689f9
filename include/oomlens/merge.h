// Combining reports made separately (per file with -j, per shard or host by a
// batch job) into one, as if one scan had read every input in order.
//
//   std::vector<oomlens::Report> parts = ...;   // in input order
//   oomlens::Report all = oomlens::MergeReports(std::move(parts), rules, "");
#ifndef OOMLENS_MERGE_H_
#define OOMLENS_MERGE_H_

#include <string>
#include <vector>

#include "oomlens/report.h"
#include "oomlens/rules.h"

namespace oomlens {

/// Merges parts (each a finished report of one or more inputs, in order):
/// inputs are concatenated, incidents regrouped across parts, then facts
/// derived, causes decided and consequences correlated again with rules.
Report MergeReports(std::vector<Report> parts, const RuleSet& rules, const std::string& chip);

}  // namespace oomlens

#endif  // OOMLENS_MERGE_H_
