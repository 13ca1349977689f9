// The summary of an allocation listing (compiler report, allocation dump, peak
// buffers): totals by state, free blocks, the owners and labels holding most
// bytes, and groups of identical live buffers.
#ifndef OOMLENS_CORE_ANALYZE_ALLOCATION_SUMMARY_H_
#define OOMLENS_CORE_ANALYZE_ALLOCATION_SUMMARY_H_

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/model/listing_sink.h"
#include "oomlens/report.h"

namespace oomlens {

constexpr size_t kGroupsKept = 10;

/// Listing entries a report keeps, over all its incidents (eight dumps of 100,000
/// entries took 2.46 GB): each listing is summarised whole, then the entries past
/// the cap are dropped, largest kept, in the order incidents are first seen.
constexpr size_t kMaxAllocationsPerReport = 10000;

/// Where an entry stands in the order listings are shown (ListingOrder): live
/// before free, larger first, then listing order.
struct ListingStanding {
  bool live;
  int64_t size;
  uint64_t at;  ///< its place in the listing
  bool operator<(const ListingStanding& o) const {
    return live != o.live ? live : size != o.size ? size > o.size : at < o.at;
  }
};
ListingStanding StandingOf(const Allocation& entry, uint64_t at);

/// Summarises a listing entry by entry, as SummarizeListing does, keeping at most
/// `keep` entries (those ListingOrder shows first): a listing of millions of entries
/// (a memory snapshot's blocks) in memory flat in their number.
class ListingSummarizer : public ListingSink {
 public:
  struct Tally {
    int64_t count = 0, bytes = 0;
  };
  using Tallies = std::unordered_map<std::string, Tally>;  // by key; ordered when the largest are kept
  explicit ListingSummarizer(size_t keep = 0);
  /// Counts the entry in the summary.
  void Summarize(const Allocation& entry);
  /// Counts it, and keeps it while it is among the first `keep` to show.
  void Add(Allocation&& entry) override;
  /// The summary facts (nothing for no entry), the groups, and the entries kept in
  /// listing order (kept may be null). The entries are handed over once.
  void Finish(Facts* facts, std::vector<AllocationGroup>* groups, std::vector<Allocation>* kept) override;
  uint64_t count() const override { return count_; }  ///< entries summarised

 private:
  struct Kept {
    ListingStanding standing;
    Allocation entry;
  };
  void TallyBlock(const Allocation& entry);
  void TallyEntry(const Allocation& entry);
  void SetEntryFacts(Facts* facts) const;

  size_t keep_;
  std::vector<Kept> kept_;  // a heap: the last to show on top
  uint64_t count_ = 0;
  bool ranked_ = false;  // its first entry has a rank: listing order is the order
  Tally allocated_, free_;
  int64_t largest_free_ = 0;
  Tallies owners_, labels_, identical_;
  int64_t formatted_size_ = -1;      // the last size keyed in identical_ (sizes counted are >= 0)
  std::string formatted_size_text_;  // and its FormatSize
  std::optional<Allocation> largest_, most_padded_;
  double padding_ = 0, padding_tolerance_ = 0, largest_padding_ = -1, expansion_ = 0;
};

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
