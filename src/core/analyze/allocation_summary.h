// The summary of an allocation listing (compiler report, allocation dump, peak
// buffers): totals by state, free blocks, the owners and labels holding most
// bytes, and groups of identical live buffers.
#ifndef OOMLENS_CORE_ALLOCATION_SUMMARY_H_
#define OOMLENS_CORE_ALLOCATION_SUMMARY_H_

#include <vector>

#include "oomlens/report.h"

namespace oomlens {

constexpr size_t kGroupsKept = 10;

/// Adds allocated_total_bytes, free_total_bytes, free_block_count,
/// largest_free_block_bytes, top_owner*, identical_buffers* to derived, and the
/// largest groups (kGroupsKept at most of each) by owner, by label (shared by 2
/// or more entries) and by identical shape+size (2 or more) to groups. Entries
/// without size_bytes are not counted. Nothing is added for an empty listing.
void SummarizeAllocations(const std::vector<Allocation>& allocations, Facts* derived,
                          std::vector<AllocationGroup>* groups);

/// The first n entries to show: a ranked listing (entries with a rank) in its
/// order, any other (a block map) by size, live blocks before free ones.
std::vector<const Allocation*> ListingOrder(const std::vector<Allocation>& allocations, size_t n);

/// "free", "reserved" or "allocated" (no state printed means allocated).
const char* AllocationState(const Allocation& allocation);

}  // namespace oomlens

#endif  // OOMLENS_CORE_ALLOCATION_SUMMARY_H_
