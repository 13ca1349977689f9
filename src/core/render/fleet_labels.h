// Internal: the phrases a fleet report is written in, shared by its text,
// Markdown and HTML renderers (render_fleet.cc). Raw: callers escape them.
#ifndef OOMLENS_CORE_RENDER_FLEET_LABELS_H_
#define OOMLENS_CORE_RENDER_FLEET_LABELS_H_

#include <cstdint>
#include <string>

#include "oomlens/fleet.h"

namespace oomlens {

/// "5,000 jobs, 1,234 with an OOM; 9,876 OOM messages in 42 distinct failures"
std::string FleetHeadline(const FleetReport& fleet);
/// "oversize · tpu_program_load E0101 · program jit_step · hbm"
std::string FleetIdentity(const FleetFailure& failure);
/// "2026-11-02T10:00:00 .. 2026-11-30T09:14:11", "" when untimed
std::string FleetWhen(const FleetFailure& failure);
/// "worker-0.log, worker-3.log and 810 more": at most `named` names.
std::string FleetJobs(const FleetFailure& failure, size_t named);
/// "requested 29.49G .. 31.00G, free 147.64M"
std::string FleetFigures(const FleetFailure& failure);

}  // namespace oomlens

#endif  // OOMLENS_CORE_RENDER_FLEET_LABELS_H_
