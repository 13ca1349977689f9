// Internal: the keys a fleet report groups and counts by (compare/fleet.cc).
#ifndef OOMLENS_CORE_COMPARE_FLEET_KEYS_H_
#define OOMLENS_CORE_COMPARE_FLEET_KEYS_H_

#include <string>

#include "oomlens/fleet.h"  // MaskedMessage
#include "oomlens/report.h"

namespace oomlens {

/// Timestamps that name no year ("--11-30...", glog's) dated with the year that puts
/// them nearest the latest full timestamp of the report, so that one day has one key
/// and December comes before January. Without a full timestamp they stay as they are.
class YearGuess {
 public:
  explicit YearGuess(const Report& merged);
  std::string Dated(const std::string& text) const;

 private:
  std::string latest_;
};

}  // namespace oomlens

#endif  // OOMLENS_CORE_COMPARE_FLEET_KEYS_H_
