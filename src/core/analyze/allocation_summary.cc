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

struct Tally {
  int64_t count = 0, bytes = 0;
};

// The largest tallies (by bytes, then key), as groups with their share of total.
void KeepLargest(AllocationGroup::By by, const std::map<std::string, Tally>& tallies, int64_t min_count,
                 int64_t total, std::vector<AllocationGroup>* groups) {
  std::vector<AllocationGroup> all;
  for (const auto& [key, t] : tallies) {
    if (t.count < min_count) continue;
    double share = total > 0 ? static_cast<double>(t.bytes) / static_cast<double>(total) : 0;
    all.push_back(AllocationGroup{by, key, t.count, t.bytes, share});
  }
  std::stable_sort(all.begin(), all.end(),
                   [](const AllocationGroup& a, const AllocationGroup& b) { return a.bytes > b.bytes; });
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

}  // namespace

const char* AllocationState(const Allocation& allocation) {
  const FactValue* state = Field(allocation, "state");
  if (!state) return "allocated";
  std::string s = Lower(state->text);
  if (s == "free" || s == "available" || s == "unused" || s == "f") return "free";
  if (s == "reserved" || s == "r") return "reserved";
  return "allocated";
}

std::vector<const Allocation*> ListingOrder(const std::vector<Allocation>& allocations, size_t n) {
  std::vector<const Allocation*> all;
  bool ranked = !allocations.empty() && Field(allocations.front(), "rank");
  if (ranked) {
    for (size_t k = 0; k < allocations.size() && k < n; ++k) all.push_back(&allocations[k]);
    return all;
  }
  // Live before free, then larger first, then listing order: the keys are read once
  // (a sort of a snapshot's 500,000 blocks read each block's fields 80 times).
  struct Keyed {
    bool live;
    int64_t size;
    size_t at;
    bool operator<(const Keyed& o) const {
      return live != o.live ? live : size != o.size ? size > o.size : at < o.at;
    }
  };
  std::vector<Keyed> keyed;
  keyed.reserve(allocations.size());
  for (size_t k = 0; k < allocations.size(); ++k) {
    const FactValue* size = Field(allocations[k], "size_bytes");
    keyed.push_back(
        {AllocationState(allocations[k]) == std::string("allocated"), size ? size->integer : -1, k});
  }
  size_t shown = std::min(n, keyed.size());
  std::partial_sort(keyed.begin(), keyed.begin() + static_cast<std::ptrdiff_t>(shown), keyed.end());
  for (size_t k = 0; k < shown; ++k) all.push_back(&allocations[keyed[k].at]);
  return all;
}

namespace {

// Totals by state, free blocks, owners, labels and identical buffers.
void SummarizeBlocks(const std::vector<Allocation>& allocations, Facts* derived,
                     std::vector<AllocationGroup>* groups) {
  Tally allocated, free;
  int64_t largest_free = 0;
  std::map<std::string, Tally> owners, labels, identical;
  for (const auto& a : allocations) {
    const FactValue* size = Field(a, "size_bytes");
    if (!size || size->integer < 0) continue;
    std::string state = AllocationState(a);
    if (state == "free") {
      ++free.count;
      AddSaturating(size->integer, &free.bytes);  // sizes from a crafted record never wrap
      largest_free = std::max(largest_free, size->integer);
      continue;
    }
    if (state != "allocated") continue;
    ++allocated.count;
    AddSaturating(size->integer, &allocated.bytes);
    auto add = [size](std::map<std::string, Tally>* to, const std::string& key) {
      Tally& t = (*to)[key];
      ++t.count;
      AddSaturating(size->integer, &t.bytes);
    };
    if (const FactValue* owner = Field(a, "owner")) add(&owners, owner->text);
    if (const FactValue* label = Field(a, "label")) add(&labels, label->text);
    const FactValue* shape = Field(a, "shape");
    add(&identical, (shape ? shape->text + ", " : std::string()) + FormatSize(size->integer));
  }
  if (allocated.count + free.count == 0) return;
  if (allocated.count > 0)
    (*derived)["allocated_total_bytes"] = SizeValue(static_cast<double>(allocated.bytes));
  if (free.count > 0) {
    (*derived)["free_total_bytes"] = SizeValue(static_cast<double>(free.bytes));
    (*derived)["free_block_count"] = CountValue(free.count);
    (*derived)["largest_free_block_bytes"] = SizeValue(static_cast<double>(largest_free));
  }
  KeepLargest(AllocationGroup::By::kOwner, owners, 1, allocated.bytes, groups);
  KeepLargest(AllocationGroup::By::kLabel, labels, 2, allocated.bytes, groups);
  KeepLargest(AllocationGroup::By::kIdentical, identical, 2, allocated.bytes, groups);
  if (const AllocationGroup* top = First(*groups, AllocationGroup::By::kOwner)) {
    (*derived)["top_owner"] = TextValue(top->key);
    (*derived)["top_owner_bytes"] = SizeValue(static_cast<double>(top->bytes));
    (*derived)["top_owner_share"] = RatioValue(top->share);
  }
  if (const AllocationGroup* same = MostSuspicious(*groups)) {
    (*derived)["identical_buffers_count"] = CountValue(same->count);
    (*derived)["identical_buffers_bytes"] = SizeValue(static_cast<double>(same->bytes));
    (*derived)["identical_buffers_share"] = RatioValue(same->share);
    (*derived)["identical_buffers_shape"] = TextValue(same->key);
  }
}

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

// The entry count, the largest entry and the padding waste.
void SummarizeEntries(const std::vector<Allocation>& allocations, Facts* derived) {
  (*derived)["allocation_count"] = CountValue(static_cast<int64_t>(allocations.size()));
  const Allocation* largest = nullptr;
  const Allocation* most_padded = nullptr;
  double padding = 0, padding_tolerance = 0, largest_padding = -1, expansion = 0;
  for (const auto& a : allocations) {
    const FactValue* size = Field(a, "size_bytes");
    if (size && (!largest || size->integer > Field(*largest, "size_bytes")->integer)) largest = &a;
    if (const FactValue* p = Field(a, "padding_bytes")) {
      padding += p->number;
      padding_tolerance += p->tolerance;
      largest_padding = std::max(largest_padding, p->number);
    }
    if (const FactValue* e = Field(a, "expansion"); e && e->number > expansion) {
      expansion = e->number;
      most_padded = &a;
    }
  }
  if (most_padded) DescribeTilePadding(*most_padded, derived);
  if (largest_padding >= 0) {
    (*derived)["padding_total_bytes"] = SizeValue(padding, padding_tolerance);
    (*derived)["largest_padding_bytes"] = SizeValue(largest_padding, 0);
  }
  if (expansion > 0) (*derived)["max_expansion"] = RatioValue(expansion);
  if (!largest) return;
  (*derived)["largest_allocation_bytes"] = *Field(*largest, "size_bytes");
  const std::pair<const char*, const char*> kText[] = {{"shape", "largest_allocation_shape"},
                                                       {"operator", "largest_allocation_operator"},
                                                       {"label", "largest_allocation_label"}};
  for (const auto& [field, name] : kText) {
    if (const FactValue* v = Field(*largest, field)) (*derived)[name] = TextValue(v->text);
  }
  const FactValue* file = Field(*largest, "source_file");
  const FactValue* line = Field(*largest, "source_line");
  if (file) (*derived)["largest_allocation_source"] = TextValue(file->text + (line ? ":" + line->text : ""));
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

void SummarizeListing(Incident* incident) {
  if (!incident->listing_facts.empty() || incident->allocations.empty()) return;
  incident->allocation_groups.clear();
  SummarizeBlocks(incident->allocations, &incident->listing_facts, &incident->allocation_groups);
  SummarizeEntries(incident->allocations, &incident->listing_facts);
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
