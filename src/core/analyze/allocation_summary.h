// The summary of an allocation listing (compiler report, allocation dump, peak
// buffers): totals by state, free blocks, the owners and labels holding most
// bytes, and groups of identical live buffers.
#ifndef OOMLENS_CORE_ANALYZE_ALLOCATION_SUMMARY_H_
#define OOMLENS_CORE_ANALYZE_ALLOCATION_SUMMARY_H_

#include <vector>

#include "oomlens/report.h"

namespace oomlens {

constexpr size_t kGroupsKept = 10;

/// Listing entries a report keeps, over all its incidents (eight dumps of 100,000
/// entries took 2.46 GB): each listing is summarised whole, then the entries past
/// the cap are dropped, largest kept, in the order incidents are first seen.
constexpr size_t kMaxAllocationsPerReport = 10000;

/// Sets incident->listing_facts (allocation_count, allocated_total_bytes,
/// free_total_bytes, free_block_count, largest_free_block_bytes, top_owner*,
/// identical_buffers*, padding and largest_allocation* facts) and
/// allocation_groups: the largest groups (kGroupsKept at most of each) by owner, by
/// label (shared by 2 or more entries) and by identical shape+size (2 or more).
/// Entries without size_bytes are not counted. Does nothing when the listing was
/// summarised already or is empty.
void SummarizeListing(Incident* incident);

/// Summarises the listing, then keeps at most `room` of its entries: those
/// ListingOrder shows first, in listing order. Returns how many were dropped.
size_t KeepLargestEntries(size_t room, Incident* incident);

/// Whether the incident has its listing (its entries may all have been dropped).
inline bool HasListing(const Incident& incident) {
  return !incident.allocations.empty() || !incident.listing_facts.empty();
}

/// What the listing lists: "processes" when every entry is a process (PyTorch's
/// "Process 48211 has 77.94 GiB memory in use"), else "allocations".
inline const char* ListingNoun(const Incident& incident) {
  bool processes = !incident.allocations.empty();
  for (const auto& a : incident.allocations) processes = processes && a.fields.count("pid") > 0;
  return processes ? "processes" : "allocations";
}

/// Whether a derived fact is one SummarizeListing sets (a report read back keeps them).
bool IsListingFact(const std::string& name);

/// The first n entries to show: a ranked listing (entries with a rank) in its
/// order, any other (a block map) by size, live blocks before free ones.
std::vector<const Allocation*> ListingOrder(const std::vector<Allocation>& allocations, size_t n);

/// "free", "reserved" or "allocated" (no state printed means allocated).
const char* AllocationState(const Allocation& allocation);

}  // namespace oomlens

#endif  // OOMLENS_CORE_ANALYZE_ALLOCATION_SUMMARY_H_
