#include "core/analyze/allocation_summary.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/fact_values.h"
#include "core/model/from_chars.h"
#include "oomlens/size.h"

namespace oomlens {
namespace {

const FactValue* Field(const Allocation& a, const char* name) {
  auto it = a.fields.find(name);
  return it == a.fields.end() ? nullptr : &it->second;
}

std::string Lower(const std::string& s) {
  std::string out = s;
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

using Tally = ListingSummarizer::Tally;

// The largest tallies (by bytes, then key), as groups with their share of total.
void KeepLargest(AllocationGroup::By by, const ListingSummarizer::Tallies& tallies, int64_t min_count,
                 int64_t total, std::vector<AllocationGroup>* groups) {
  std::vector<AllocationGroup> all;
  for (const auto& [key, t] : tallies) {
    if (t.count < min_count) continue;
    double share = total > 0 ? static_cast<double>(t.bytes) / static_cast<double>(total) : 0;
    all.push_back(AllocationGroup{by, key, t.count, t.bytes, share});
  }
  std::sort(all.begin(), all.end(), [](const AllocationGroup& a, const AllocationGroup& b) {
    return a.bytes != b.bytes ? a.bytes > b.bytes : a.key < b.key;
  });
  if (all.size() > kGroupsKept) all.resize(kGroupsKept);
  groups->insert(groups->end(), all.begin(), all.end());
}

const AllocationGroup* First(const std::vector<AllocationGroup>& groups, AllocationGroup::By by) {
  for (const auto& g : groups)
    if (g.by == by) return &g;
  return nullptr;
}

// The identical-buffer group a leak would show as: the largest of those with
// many copies (a few copies are normal: parameters and optimizer moments share
// shapes), else the largest.
const AllocationGroup* MostSuspicious(const std::vector<AllocationGroup>& groups) {
  const int64_t kManyCopies = 8;
  for (const auto& g : groups)
    if (g.by == AllocationGroup::By::kIdentical && g.count >= kManyCopies) return &g;
  return First(groups, AllocationGroup::By::kIdentical);
}

// The top owner and the identical buffers a leak would show as.
void SetGroupFacts(const std::vector<AllocationGroup>& groups, Facts* derived) {
  if (const AllocationGroup* top = First(groups, AllocationGroup::By::kOwner)) {
    (*derived)["top_owner"] = TextValue(top->key);
    (*derived)["top_owner_bytes"] = SizeValue(static_cast<double>(top->bytes));
    (*derived)["top_owner_share"] = RatioValue(top->share);
  }
  if (const AllocationGroup* same = MostSuspicious(groups)) {
    (*derived)["identical_buffers_count"] = CountValue(same->count);
    (*derived)["identical_buffers_bytes"] = SizeValue(static_cast<double>(same->bytes));
    (*derived)["identical_buffers_share"] = RatioValue(same->share);
    (*derived)["identical_buffers_shape"] = TextValue(same->key);
  }
}

}  // namespace

const char* AllocationState(const Allocation& allocation) {
  const FactValue* state = Field(allocation, "state");
  if (!state) return "allocated";
  std::string s = Lower(state->text);
  if (s == "free" || s == "available" || s == "unused" || s == "f") return "free";
  if (s == "reserved" || s == "r") return "reserved";
  return "allocated";
}

ListingStanding StandingOf(const Allocation& entry, uint64_t at) {
  const FactValue* size = Field(entry, "size_bytes");
  return ListingStanding{AllocationState(entry) == std::string("allocated"), size ? size->integer : -1, at};
}

std::vector<const Allocation*> ListingOrder(const std::vector<Allocation>& allocations, size_t n) {
  std::vector<const Allocation*> all;
  bool ranked = !allocations.empty() && Field(allocations.front(), "rank");
  if (ranked) {
    for (size_t k = 0; k < allocations.size() && k < n; ++k) all.push_back(&allocations[k]);
    return all;
  }
  // The keys are read once (a sort of a snapshot's 500,000 blocks read each
  // block's fields 80 times).
  std::vector<ListingStanding> keyed;
  keyed.reserve(allocations.size());
  for (size_t k = 0; k < allocations.size(); ++k) keyed.push_back(StandingOf(allocations[k], k));
  size_t shown = std::min(n, keyed.size());
  std::partial_sort(keyed.begin(), keyed.begin() + static_cast<std::ptrdiff_t>(shown), keyed.end());
  for (size_t k = 0; k < shown; ++k) all.push_back(&allocations[keyed[k].at]);
  return all;
}

namespace {

// The dimensions of a TPU shape, its layout (minor to major) and tile:
// "s32[8388608,8,4]{2,1,0:T(8,128)}" -> {8388608, 8, 4}, {2, 1, 0}, (8, 128).
struct TiledShape {
  std::vector<int64_t> dims;
  std::vector<size_t> minor_to_major;
  int64_t tile_second_minor = 0, tile_minor = 0;
};

bool ReadNumbers(std::string_view text, std::vector<int64_t>* out) {
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view part = text.substr(0, comma);
    std::optional<int64_t> v = ParseInt64(part);
    if (!v || *v < 0) return false;
    out->push_back(*v);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
  }
  return true;
}

std::optional<TiledShape> ReadTiledShape(std::string_view shape) {
  size_t open = shape.find('['), close = shape.find(']');
  size_t layout = shape.find('{'), tile = shape.find(":T(");
  if (open == std::string_view::npos || close < open || layout < close || tile == std::string_view::npos)
    return {};
  TiledShape t;
  std::vector<int64_t> order, tiles;
  if (!ReadNumbers(shape.substr(open + 1, close - open - 1), &t.dims) || t.dims.empty()) return {};
  if (!ReadNumbers(shape.substr(layout + 1, tile - layout - 1), &order) || order.size() != t.dims.size())
    return {};
  size_t tile_end = shape.find(')', tile);
  if (tile_end == std::string_view::npos ||
      !ReadNumbers(shape.substr(tile + 3, tile_end - tile - 3), &tiles) || tiles.size() != 2 ||
      tiles[0] == 0 || tiles[1] == 0) {
    return {};
  }
  for (int64_t k : order) {
    if (k >= static_cast<int64_t>(t.dims.size())) return {};
    t.minor_to_major.push_back(static_cast<size_t>(k));
  }
  t.tile_second_minor = tiles[0];
  t.tile_minor = tiles[1];
  return t;
}

int64_t RoundUp(int64_t n, int64_t to) { return n > INT64_MAX - to ? n : (n + to - 1) / to * to; }

// Which dimensions of the most padded allocation's shape the TPU tile pads, and by
// how much: what a tip can name ("the minor dimension 4 pads to 128").
void DescribeTilePadding(const Allocation& a, Facts* derived) {
  const FactValue* shape = Field(a, "shape");
  std::optional<TiledShape> t = shape ? ReadTiledShape(shape->text) : std::nullopt;
  if (!t) return;
  int64_t minor = t->dims[t->minor_to_major[0]];
  (*derived)["padding_shape"] = TextValue(shape->text);
  (*derived)["padding_minor_dim"] = CountValue(minor);
  (*derived)["padding_minor_padded"] = CountValue(RoundUp(minor, t->tile_minor));
  if (t->dims.size() >= 2) {
    int64_t second = t->dims[t->minor_to_major[1]];
    (*derived)["padding_second_minor_dim"] = CountValue(second);
    (*derived)["padding_second_minor_padded"] = CountValue(RoundUp(second, t->tile_second_minor));
  }
  (*derived)["padding_largest_dim"] = CountValue(*std::max_element(t->dims.begin(), t->dims.end()));
}

const char* const kListingFacts[] = {"allocation_count",
                                     "allocated_total_bytes",
                                     "free_total_bytes",
                                     "free_block_count",
                                     "largest_free_block_bytes",
                                     "top_owner",
                                     "top_owner_bytes",
                                     "top_owner_share",
                                     "identical_buffers_count",
                                     "identical_buffers_bytes",
                                     "identical_buffers_share",
                                     "identical_buffers_shape",
                                     "padding_total_bytes",
                                     "largest_padding_bytes",
                                     "max_expansion",
                                     "largest_allocation_bytes",
                                     "largest_allocation_shape",
                                     "largest_allocation_operator",
                                     "largest_allocation_label",
                                     "largest_allocation_source",
                                     "padding_shape",
                                     "padding_minor_dim",
                                     "padding_minor_padded",
                                     "padding_second_minor_dim",
                                     "padding_second_minor_padded",
                                     "padding_largest_dim"};

}  // namespace

ListingSummarizer::ListingSummarizer(size_t keep) : keep_(keep) {}

// Totals by state, free blocks, owners, labels and identical buffers.
void ListingSummarizer::TallyBlock(const Allocation& a) {
  const FactValue* size = Field(a, "size_bytes");
  if (!size || size->integer < 0) return;
  std::string state = AllocationState(a);
  if (state == "free") {
    ++free_.count;
    AddSaturating(size->integer, &free_.bytes);  // sizes from a crafted record never wrap
    largest_free_ = std::max(largest_free_, size->integer);
    return;
  }
  if (state != "allocated") return;
  ++allocated_.count;
  AddSaturating(size->integer, &allocated_.bytes);
  auto add = [size](Tallies* to, const std::string& key) {
    Tally& t = (*to)[key];
    ++t.count;
    AddSaturating(size->integer, &t.bytes);
  };
  if (const FactValue* owner = Field(a, "owner")) add(&owners_, owner->text);
  if (const FactValue* label = Field(a, "label")) add(&labels_, label->text);
  const FactValue* shape = Field(a, "shape");
  if (size->integer != formatted_size_) {  // a dump repeats its sizes: formatting was 4% of an entry
    formatted_size_ = size->integer;
    formatted_size_text_ = FormatSize(size->integer);
  }
  add(&identical_, (shape ? shape->text + ", " : std::string()) + formatted_size_text_);
}

// The entry count, the largest entry and the padding waste.
void ListingSummarizer::TallyEntry(const Allocation& a) {
  ++count_;
  const FactValue* size = Field(a, "size_bytes");
  if (size && (!largest_ || size->integer > Field(*largest_, "size_bytes")->integer)) largest_ = a;
  if (const FactValue* p = Field(a, "padding_bytes")) {
    padding_ += p->number;
    padding_tolerance_ += p->tolerance;
    largest_padding_ = std::max(largest_padding_, p->number);
  }
  if (const FactValue* e = Field(a, "expansion"); e && e->number > expansion_) {
    expansion_ = e->number;
    most_padded_ = a;
  }
}

void ListingSummarizer::Summarize(const Allocation& entry) {
  ranked_ = count_ == 0 ? Field(entry, "rank") != nullptr : ranked_;
  TallyBlock(entry);
  TallyEntry(entry);
}

void ListingSummarizer::Add(Allocation&& entry) {
  Summarize(entry);
  if (keep_ == 0) return;
  ListingStanding standing = ranked_ ? ListingStanding{true, 0, count_ - 1} : StandingOf(entry, count_ - 1);
  auto worse = [](const Kept& a, const Kept& b) {
    return a.standing < b.standing;
  };  // heap top: the last shown
  if (kept_.size() < keep_) {
    kept_.push_back(Kept{standing, std::move(entry)});
    std::push_heap(kept_.begin(), kept_.end(), worse);
  } else if (standing < kept_.front().standing) {
    std::pop_heap(kept_.begin(), kept_.end(), worse);
    kept_.back() = Kept{standing, std::move(entry)};
    std::push_heap(kept_.begin(), kept_.end(), worse);
  }
}

void ListingSummarizer::Finish(Facts* derived, std::vector<AllocationGroup>* groups,
                               std::vector<Allocation>* kept) {
  if (count_ == 0) return;
  if (allocated_.count + free_.count > 0) {
    if (allocated_.count > 0)
      (*derived)["allocated_total_bytes"] = SizeValue(static_cast<double>(allocated_.bytes));
    if (free_.count > 0) {
      (*derived)["free_total_bytes"] = SizeValue(static_cast<double>(free_.bytes));
      (*derived)["free_block_count"] = CountValue(free_.count);
      (*derived)["largest_free_block_bytes"] = SizeValue(static_cast<double>(largest_free_));
    }
    KeepLargest(AllocationGroup::By::kOwner, owners_, 1, allocated_.bytes, groups);
    KeepLargest(AllocationGroup::By::kLabel, labels_, 2, allocated_.bytes, groups);
    KeepLargest(AllocationGroup::By::kIdentical, identical_, 2, allocated_.bytes, groups);
    SetGroupFacts(*groups, derived);
  }
  SetEntryFacts(derived);
  if (!kept) return;
  std::sort(kept_.begin(), kept_.end(),
            [](const Kept& a, const Kept& b) { return a.standing.at < b.standing.at; });
  for (auto& k : kept_) kept->push_back(std::move(k.entry));
  kept_.clear();
}

void ListingSummarizer::SetEntryFacts(Facts* derived) const {
  (*derived)["allocation_count"] = CountValue(static_cast<int64_t>(count_));
  if (most_padded_) DescribeTilePadding(*most_padded_, derived);
  if (largest_padding_ >= 0) {
    (*derived)["padding_total_bytes"] = SizeValue(padding_, padding_tolerance_);
    (*derived)["largest_padding_bytes"] = SizeValue(largest_padding_, 0);
  }
  if (expansion_ > 0) (*derived)["max_expansion"] = RatioValue(expansion_);
  if (!largest_) return;
  (*derived)["largest_allocation_bytes"] = *Field(*largest_, "size_bytes");
  const std::pair<const char*, const char*> kText[] = {{"shape", "largest_allocation_shape"},
                                                       {"operator", "largest_allocation_operator"},
                                                       {"label", "largest_allocation_label"}};
  for (const auto& [field, name] : kText) {
    if (const FactValue* v = Field(*largest_, field)) (*derived)[name] = TextValue(v->text);
  }
  const FactValue* file = Field(*largest_, "source_file");
  const FactValue* line = Field(*largest_, "source_line");
  if (file) (*derived)["largest_allocation_source"] = TextValue(file->text + (line ? ":" + line->text : ""));
}

void SummarizeListing(Incident* incident) {
  if (!incident->listing_facts.empty() || incident->allocations.empty()) return;
  incident->allocation_groups.clear();
  ListingSummarizer summary;
  for (const auto& a : incident->allocations) summary.Summarize(a);
  summary.Finish(&incident->listing_facts, &incident->allocation_groups, nullptr);
}

size_t KeepLargestEntries(size_t room, Incident* incident) {
  SummarizeListing(incident);
  std::vector<Allocation>& all = incident->allocations;
  if (all.size() <= room) return 0;
  std::vector<const Allocation*> largest = ListingOrder(all, room);
  std::vector<bool> keep(all.size(), false);
  for (const Allocation* a : largest) keep[static_cast<size_t>(a - all.data())] = true;
  std::vector<Allocation> kept;
  kept.reserve(room);
  for (size_t k = 0; k < all.size(); ++k)
    if (keep[k]) kept.push_back(std::move(all[k]));
  size_t dropped = all.size() - kept.size();
  all = std::move(kept);
  return dropped;
}

bool IsListingFact(const std::string& name) {
  for (const char* listing : kListingFacts)
    if (name == listing) return true;
  return false;
}

}  // namespace oomlens
