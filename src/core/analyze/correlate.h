// Correlation: which incidents are consequences of an earlier one in the same
// input (the allocator's failure resurfacing as the framework's error, a kill
// ending its container). Roots come first; consequences say what they follow.
#ifndef OOMLENS_CORE_ANALYZE_CORRELATE_H_
#define OOMLENS_CORE_ANALYZE_CORRELATE_H_

#include <vector>

#include "oomlens/report.h"

namespace oomlens {

/// Sets consequence_of / relation on incidents that follow a root of a known
/// chain within a few hundred lines of the same input. Incidents must be in
/// order of first occurrence. Where both report one failure (the allocator's
/// dump, then the framework's error), each gets the facts only the other printed,
/// so either is decided on all the figures the log holds.
void LinkConsequences(std::vector<Incident>* incidents);

/// After deciding: a consequence its own rules leave undecided (or the same
/// failure, reported again, decided no more surely) takes its root's diagnosis.
void ShareDiagnoses(std::vector<Incident>* incidents);

}  // namespace oomlens

#endif  // OOMLENS_CORE_ANALYZE_CORRELATE_H_
