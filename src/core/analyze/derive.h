// Derived facts: what oomlens computes from the facts a log printed.
#ifndef OOMLENS_CORE_ANALYZE_DERIVE_H_
#define OOMLENS_CORE_ANALYZE_DERIVE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "oomlens/report.h"

namespace oomlens {

/// Fills incident->derived from incident->facts; a chip given by the user
/// supplies capacity_bytes when the log did not print it.
void DeriveFacts(const std::string& chip, Incident* incident);

}  // namespace oomlens

#endif  // OOMLENS_CORE_ANALYZE_DERIVE_H_
