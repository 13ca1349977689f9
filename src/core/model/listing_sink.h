// Where a reader puts the entries of a listing as it reads them: a memory
// snapshot's millions of blocks go to a sink instead of a vector, so that a later
// stage (analyze's ListingSummarizer) can summarise them as they come.
#ifndef OOMLENS_CORE_MODEL_LISTING_SINK_H_
#define OOMLENS_CORE_MODEL_LISTING_SINK_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "oomlens/report.h"

namespace oomlens {

class ListingSink {
 public:
  virtual ~ListingSink() = default;
  virtual void Add(Allocation&& entry) = 0;
  virtual uint64_t count() const = 0;  ///< entries added
  /// The summary of every entry (none: the listing is kept whole, for grouping to
  /// summarise), its groups, and the entries kept, in listing order. Once.
  virtual void Finish(Facts* facts, std::vector<AllocationGroup>* groups, std::vector<Allocation>* kept) = 0;
};

using ListingSinkFactory = std::function<std::unique_ptr<ListingSink>()>;

/// A sink that keeps every entry: the listing as it was read.
class WholeListing : public ListingSink {
 public:
  void Add(Allocation&& entry) override { entries_.push_back(std::move(entry)); }
  uint64_t count() const override { return entries_.size(); }
  void Finish(Facts*, std::vector<AllocationGroup>*, std::vector<Allocation>* kept) override {
    *kept = std::move(entries_);
  }

 private:
  std::vector<Allocation> entries_;
};

}  // namespace oomlens

#endif  // OOMLENS_CORE_MODEL_LISTING_SINK_H_
