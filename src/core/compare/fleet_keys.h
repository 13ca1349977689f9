// Internal: the keys a fleet report groups and counts by (compare/fleet.cc).
#ifndef OOMLENS_CORE_COMPARE_FLEET_KEYS_H_
#define OOMLENS_CORE_COMPARE_FLEET_KEYS_H_

#include <map>
#include <string>

#include "oomlens/fleet.h"  // MaskedMessage
#include "oomlens/report.h"

namespace oomlens {

/// Timestamps that name no year ("--11-30...", glog's) dated with the year that puts
/// them nearest a reference, so that one day has one key and December comes before
/// January. The reference is the job's own full timestamps (their median), else the
/// fleet's: the median of the jobs' references, lent only when two jobs or more give
/// one and three in four of them agree within half a year, so that one job with a
/// wrong clock never re-dates the others (attack review W11). Without a reference
/// they stay as they are.
class YearGuess {
 public:
  explicit YearGuess(const Report& merged);
  /// text ("--MM-DD...") dated for an incident first seen in input.
  std::string Dated(const std::string& text, int input) const;

 private:
  std::map<int, std::string> by_input_;  // each job's median full timestamp
  std::string fleet_;                    // the fleet's reference, "" when none
};

}  // namespace oomlens

#endif  // OOMLENS_CORE_COMPARE_FLEET_KEYS_H_
