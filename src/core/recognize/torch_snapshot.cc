#include "core/recognize/torch_snapshot.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "core/model/fact_values.h"
#include "core/recognize/frames.h"

namespace oomlens {
namespace {

using Type = PickleValue::Type;

std::optional<int64_t> IntOf(const PickleValue* v) {
  if (!v || v->type != Type::kInt) return std::nullopt;
  return v->integer;
}

bool IsList(const PickleValue* v) { return v && (v->type == Type::kList || v->type == Type::kTuple); }

// The frames of a snapshot as stack frames (they stay owned by the snapshot).
std::vector<StackFrame> Frames(const PickleValue* frames) {
  std::vector<StackFrame> out;
  if (!IsList(frames)) return out;
  for (const auto& frame : frames->items) {
    const PickleValue* file = frame->Get("filename");
    const PickleValue* name = frame->Get("name");
    StackFrame f;
    if (file && file->type == Type::kString) f.file = file->text;
    if (name && name->type == Type::kString) f.name = name->text;
    f.line = IntOf(frame->Get("line")).value_or(-1);
    out.push_back(f);
  }
  return out;
}

// Who owns what frames name: a frames list's owner frame, or the owner a streamed
// read put in its place (SnapshotReader::Compact).
std::string OwnerOfFrames(const PickleValue* frames) {
  if (frames && frames->type == Type::kString) return frames->text;
  return OwnerFrame(frames);
}

bool HasFrames(const PickleValue* frames) {
  return frames && (frames->type == Type::kString || (IsList(frames) && !frames->items.empty()));
}

// The frames of a block: its own (a current snapshot), or the last of its history
// (the older layout: each reuse of the block appended one).
const PickleValue* BlockFrames(const PickleValue& block) {
  const PickleValue* frames = block.Get("frames");
  if (HasFrames(frames)) return frames;
  const PickleValue* history = block.Get("history");
  if (!IsList(history) || history->items.empty()) return nullptr;
  return history->items.back()->Get("frames");
}

const char* BlockState(const std::string& state) {
  if (state == "inactive") return "free";
  if (state == "active_awaiting_free" || state == "active_pending_free") return "reserved";
  return "allocated";
}

std::string Hex(int64_t address) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(address));
  return buf;
}

// A CUDA-graph private pool: any pool id but the default (0, 0).
bool InGraphPool(const PickleValue& segment) {
  const PickleValue* pool = segment.Get("segment_pool_id");
  if (!IsList(pool)) return false;
  for (const auto& id : pool->items)
    if (IntOf(id.get()).value_or(0) != 0) return true;
  return false;
}

std::string_view ActionOf(const PickleValue& entry) {
  const PickleValue* action = entry.Get("action");
  return action && action->type == Type::kString ? std::string_view(action->text) : std::string_view();
}

void SetSize(Facts* facts, const char* name, int64_t bytes) {
  (*facts)[name] = SizeValue(static_cast<double>(bytes));
}

bool ExpandableInSettings(const PickleValue* settings) {
  const PickleValue* on = settings ? settings->Get("expandable_segments") : nullptr;
  return on && on->type == Type::kBool && on->boolean;
}

std::string AllocConf(const PickleValue* settings) {
  const PickleValue* conf = settings ? settings->Get("PYTORCH_CUDA_ALLOC_CONF") : nullptr;
  return conf && conf->type == Type::kString ? conf->text : "";
}

// Devices one snapshot may describe: it is one process's (8 GPUs, 64 at the most
// today); a crafted one of 200,000 took 3.4 GB as as many records.
constexpr size_t kMaxDevices = 1024;

// Per device: the segments' figures, and the blocks summarised as they are read,
// the largest kept (a snapshot of millions of blocks in flat memory).
struct DeviceState {
  int64_t reserved = 0, allocated = 0, awaiting = 0, cached_free = 0, graph_pool = 0;
  int64_t segments = 0;
  bool expandable = false;
  std::unique_ptr<ListingSink> listing;
  std::deque<int64_t>
      live;  // addresses of its allocated blocks, sorted at the end (in chunks: no copy as it grows)
};

// What a device's trace recorded: its last OOM and how many, and the allocations it
// saw made and never freed (still live when the snapshot was taken), by frame.
struct TraceSummary {
  std::optional<int64_t> oom_size, oom_free;  // of the last oom
  int64_t count = 0;
  int64_t allocs = 0, frees = 0;  // allocations the trace saw made, and freed
  struct Live {
    int64_t size = 0;
    std::string owner;
  };
  std::unordered_map<int64_t, Live> live;  // by address: made in the trace and not freed
  bool oom() const { return count > 0; }
};

// The segment the blocks being read are part of.
struct SegmentPlace {
  const void* list = nullptr;    // its blocks list, while streamed
  size_t index = 0, blocks = 0;  // its place in segments; blocks read so far
  int64_t device = 0, total = 0, cursor = 0;
  std::optional<int64_t> address;
};

// Reads a snapshot's segments, blocks and trace entries one at a time, as a
// streamed read hands them over (Take) or as a whole tree gives them (Replay).
class SnapshotReader : public PickleVisitor {
 public:
  SnapshotReader(const std::string& input, int input_index, ListingSinkFactory listing)
      : input_(input), input_index_(input_index), listing_(std::move(listing)) {}

  bool Take(const PickleList& list, const PickleRef& item) override;
  PickleRef Compact(std::string_view key, PickleRef value) override;
  // Reads what the tree still holds (all of it, when it was read whole).
  void Replay(const PickleValue& root);
  bool Finish(const PickleValue& root, SnapshotEvents* out, std::string* error);

 private:
  void AddBlock(const PickleValue& block, SegmentPlace* place);
  void AddSegment(const PickleValue& segment, size_t index);
  void AddTraceEntry(int64_t device, const PickleValue& entry);
  DeviceState* Device(int64_t id, const std::string& where);
  void SetNeverFreed(const TraceSummary& t, const std::deque<int64_t>& blocks, Facts* f) const;
  Event DeviceEvent(int64_t index, DeviceState&& device, const TraceSummary& trace,
                    const PickleValue* settings) const;
  void Error(const std::string& message) {
    if (error_.empty()) error_ = message;
  }

  std::string input_;
  int input_index_;
  ListingSinkFactory listing_;  // where each device's blocks go
  std::string error_;           // the first thing found wrong; the read goes on, and Finish refuses it
  std::map<int64_t, DeviceState> devices_;
  std::map<int64_t, TraceSummary> traces_;  // device traces are indexed by device
  SegmentPlace place_;                      // of the blocks being streamed
  size_t segments_seen_ = 0;
  std::unordered_map<std::string, PickleRef> owners_;  // one stand-in per owner frame
};

bool Is(const std::vector<std::string>& path, std::initializer_list<const char*> want) {
  return std::equal(path.begin(), path.end(), want.begin(), want.end(),
                    [](const std::string& a, const char* b) { return a == b; });
}

bool SnapshotReader::Take(const PickleList& list, const PickleRef& item) {
  const std::vector<std::string>& path = list.Path();
  if (Is(path, {"segments", "[]", "blocks"}) || Is(path, {"[]", "blocks"})) {
    if (place_.list != &list.List()) {  // the first block of a segment: its place from its fields
      const PickleValue* address = list.Sibling("address");
      size_t index = static_cast<size_t>(std::max<int64_t>(0, list.HolderIndex()));
      place_ = SegmentPlace{&list.List(),
                            index,
                            0,
                            IntOf(list.Sibling("device")).value_or(0),
                            IntOf(list.Sibling("total_size")).value_or(0),
                            IntOf(address).value_or(0),
                            IntOf(address)};
    }
    AddBlock(*item, &place_);
    return true;
  }
  if (Is(path, {"segments"}) || list.IsRoot()) {  // the root: the older layout, a list of segments
    place_.list = nullptr;  // its blocks list is let go with it: another may come at its address
    AddSegment(*item, segments_seen_++);
    return true;
  }
  if (Is(path, {"device_traces", "[]"})) {
    AddTraceEntry(list.Index(), *item);
    return true;
  }
  return false;
}

// A frames list becomes the frame that owns it: what every use of it needs, in a
// few bytes instead of a list of dicts (one per block in a real snapshot).
PickleRef SnapshotReader::Compact(std::string_view key, PickleRef value) {
  if (key != "frames" || !IsList(value.get())) return value;
  std::string owner = OwnerFrame(value.get());
  auto it = owners_.find(owner);
  if (it == owners_.end()) {
    auto stand_in = std::make_shared<PickleValue>();
    stand_in->type = Type::kString;
    stand_in->text = owner;
    it = owners_.emplace(owner, std::move(stand_in)).first;
  }
  return it->second;
}

void SnapshotReader::Replay(const PickleValue& root) {
  const PickleValue* segments = root.type == Type::kDict ? root.Get("segments") : &root;
  for (size_t s = 0; IsList(segments) && s < segments->items.size(); ++s) {
    const PickleValue& segment = *segments->items[s];
    const PickleValue* blocks = segment.Get("blocks");
    const PickleValue* address = segment.Get("address");
    SegmentPlace place{nullptr,
                       segments_seen_,
                       0,
                       IntOf(segment.Get("device")).value_or(0),
                       IntOf(segment.Get("total_size")).value_or(0),
                       IntOf(address).value_or(0),
                       IntOf(address)};
    for (size_t b = 0; IsList(blocks) && b < blocks->items.size(); ++b) AddBlock(*blocks->items[b], &place);
    AddSegment(segment, segments_seen_++);
  }
  const PickleValue* traces = root.type == Type::kDict ? root.Get("device_traces") : nullptr;
  for (size_t d = 0; IsList(traces) && d < traces->items.size(); ++d) {
    const PickleValue& trace = *traces->items[d];
    for (size_t e = 0; IsList(&trace) && e < trace.items.size(); ++e)
      AddTraceEntry(static_cast<int64_t>(d), *trace.items[e]);
  }
}

DeviceState* SnapshotReader::Device(int64_t id, const std::string& where) {
  if (!devices_.count(id) && devices_.size() >= kMaxDevices) {
    Error(where + " is on a device past the " + std::to_string(kMaxDevices) +
          " one snapshot may describe (a process has a few)");
    return nullptr;
  }
  DeviceState& device = devices_[id];
  if (!device.listing) device.listing = listing_ ? listing_() : std::make_unique<WholeListing>();
  return &device;
}

void SnapshotReader::AddBlock(const PickleValue& block, SegmentPlace* place) {
  std::string where = "segment " + std::to_string(place->index) + " block " + std::to_string(place->blocks++);
  auto size = IntOf(block.Get("size"));
  const PickleValue* state = block.Get("state");
  if (block.type != Type::kDict || !size || *size < 0 || !state || state->type != Type::kString)
    return Error(where + " has no size and state (a snapshot's block has both)");
  DeviceState* device = Device(place->device, where);
  if (!device) return;
  const char* held = BlockState(state->text);
  bool free = std::string_view(held) == "free";
  if (free) AddSaturating(*size, &device->cached_free);
  else if (std::string_view(held) == "reserved") AddSaturating(*size, &device->awaiting);
  else AddSaturating(*size, &device->allocated);
  Allocation a;
  a.fields["size_bytes"] = SizeValue(static_cast<double>(*size));
  a.fields["state"] = TextValue(held);
  auto address = IntOf(block.Get("address"));
  if (!address && place->address) address = place->cursor;  // blocks are listed in address order
  if (address) a.fields["offset"] = TextValue(Hex(*address));
  std::string owner = free ? "" : OwnerOfFrames(BlockFrames(block));
  if (!owner.empty()) a.fields["owner"] = TextValue(owner);
  // The segment it is part of, as the HTML segment map draws it.
  a.fields["segment"] = TextValue(place->address ? Hex(*place->address) : "#" + std::to_string(place->index));
  a.fields["segment_bytes"] = SizeValue(static_cast<double>(place->total));
  AddSaturating(*size, &place->cursor);
  if (address && std::string_view(held) == "allocated") device->live.push_back(*address);
  device->listing->Add(std::move(a));
}

void SnapshotReader::AddSegment(const PickleValue& segment, size_t index) {
  std::string where = "segment " + std::to_string(index);
  auto total = IntOf(segment.Get("total_size"));
  if (segment.type != Type::kDict || !total || *total < 0 || !IsList(segment.Get("blocks")))
    return Error(where + " is not a dict with total_size and blocks");
  DeviceState* device = Device(IntOf(segment.Get("device")).value_or(0), where);
  if (!device) return;
  AddSaturating(*total, &device->reserved);
  ++device->segments;
  if (InGraphPool(segment)) AddSaturating(*total, &device->graph_pool);
  const PickleValue* expandable = segment.Get("is_expandable");
  if (expandable && expandable->type == Type::kBool && expandable->boolean) device->expandable = true;
}

void SnapshotReader::AddTraceEntry(int64_t device, const PickleValue& entry) {
  if (device < 0) return;
  if (!traces_.count(device) && traces_.size() >= kMaxDevices)
    return Error("device trace " + std::to_string(device) + " is past the " + std::to_string(kMaxDevices) +
                 " devices one snapshot may describe (a process has a few)");
  TraceSummary& t = traces_[device];
  std::string_view action = ActionOf(entry);
  auto addr = IntOf(entry.Get("addr"));
  if (action == "oom") {
    t.oom_size = IntOf(entry.Get("size"));
    t.oom_free = IntOf(entry.Get("device_free"));
    ++t.count;
  } else if (action == "alloc" && addr) {
    auto size = IntOf(entry.Get("size"));
    t.live[*addr] =
        TraceSummary::Live{std::max<int64_t>(0, size.value_or(0)), OwnerOfFrames(entry.Get("frames"))};
    ++t.allocs;
  } else if ((action == "free_requested" || action == "free_completed") && addr) {
    t.frees += static_cast<int64_t>(t.live.erase(*addr));
  }
}

// The allocations made in the trace and never freed that are still allocated blocks
// of the snapshot (a trace that disagrees with its segments counts only those), and
// the frame that made most of them.
void SnapshotReader::SetNeverFreed(const TraceSummary& t, const std::deque<int64_t>& blocks, Facts* f) const {
  if (t.allocs == 0) return;
  (*f)["trace_allocs"] = CountValue(t.allocs);
  (*f)["trace_frees"] = CountValue(t.frees);
  std::map<std::string, std::pair<int64_t, int64_t>> by_owner;  // bytes, count
  int64_t bytes = 0, count = 0;
  for (const auto& [addr, live] : t.live) {
    if (!std::binary_search(blocks.begin(), blocks.end(), addr)) continue;
    ++count;
    auto& [owner_bytes, owner_count] = by_owner[live.owner];
    AddSaturating(live.size, &owner_bytes);
    ++owner_count;
    AddSaturating(live.size, &bytes);
  }
  if (count == 0) return;
  (*f)["never_freed_count"] = CountValue(count);
  SetSize(f, "never_freed_bytes", bytes);
  auto top = by_owner.end();
  for (auto it = by_owner.begin(); it != by_owner.end(); ++it)
    if (!it->first.empty() && (top == by_owner.end() || it->second.first > top->second.first)) top = it;
  if (top == by_owner.end()) return;
  (*f)["never_freed_owner"] = TextValue(top->first);
  SetSize(f, "never_freed_owner_bytes", top->second.first);
  (*f)["never_freed_owner_count"] = CountValue(top->second.second);
}

// A device's state as a record: an OOM when its trace recorded one (the last),
// else memory held, which may join the PyTorch failure it was taken for.
Event SnapshotReader::DeviceEvent(int64_t index, DeviceState&& device, const TraceSummary& trace,
                                  const PickleValue* settings) const {
  Event e;
  e.signature = "pytorch_snapshot";
  e.kind = trace.oom() ? "pytorch_cuda" : "memory_state";
  e.title = trace.oom() ? "PyTorch GPU out of memory (memory snapshot)"
                        : "Device memory held (PyTorch memory snapshot, no OOM in its trace)";
  if (!trace.oom()) e.joins = {"pytorch_"};
  e.device = "GPU " + std::to_string(index);
  e.where = Location{input_, 0};
  e.input_index = input_index_;
  e.record = true;
  Facts& f = e.facts;
  if (trace.oom()) {
    if (trace.oom_size && *trace.oom_size >= 0)
      SetSize(&f, "requested_bytes", *trace.oom_size);  // < 0: no figure
    if (trace.oom_free && *trace.oom_free >= 0) SetSize(&f, "free_bytes", *trace.oom_free);
    f["trace_oom_count"] = CountValue(trace.count);
  }
  SetSize(&f, "reserved_bytes", device.reserved);
  SetSize(&f, "allocated_bytes", device.allocated);
  SetSize(&f, "reserved_unallocated_bytes", std::max<int64_t>(0, device.reserved - device.allocated));
  if (device.awaiting > 0) SetSize(&f, "awaiting_free_bytes", device.awaiting);
  if (device.graph_pool > 0) SetSize(&f, "graph_pool_bytes", device.graph_pool);
  f["segment_count"] = CountValue(device.segments);
  if (device.expandable || ExpandableInSettings(settings)) f["expandable_segments"] = TextValue("on");
  std::string conf = AllocConf(settings);
  if (!conf.empty()) f["alloc_conf"] = TextValue(conf);
  std::sort(device.live.begin(), device.live.end());
  SetNeverFreed(trace, device.live, &f);
  if (device.listing) {
    uint64_t blocks = device.listing->count();
    device.listing->Finish(&e.listing_facts, &e.allocation_groups, &e.allocations);
    e.entries_not_kept = blocks - e.allocations.size();
  }
  return e;
}

bool SnapshotReader::Finish(const PickleValue& root, SnapshotEvents* out, std::string* error) {
  const PickleValue* segments = root.type == Type::kDict ? root.Get("segments") : &root;
  if (!IsList(segments)) {
    *error =
        "the pickle holds no PyTorch memory snapshot (neither a dict with segments nor a list of segments)";
    return false;
  }
  if (!error_.empty()) {
    *error = error_;
    return false;
  }
  const PickleValue* settings = root.type == Type::kDict ? root.Get("allocator_settings") : nullptr;
  for (const auto& [index, trace] : traces_)
    if (trace.oom()) devices_.try_emplace(index);  // an OOM on a device with no segment (and no listing)
  const TraceSummary none;
  for (auto& [index, device] : devices_) {
    auto trace = traces_.find(index);
    out->events.push_back(
        DeviceEvent(index, std::move(device), trace != traces_.end() ? trace->second : none, settings));
  }
  return true;
}

}  // namespace

std::string OwnerFrame(const PickleValue* frames) { return OwnerOf(Frames(frames)); }

bool ReadTorchSnapshot(const PickleValue& root, const std::string& input, int input_index,
                       SnapshotEvents* out, std::string* error) {
  SnapshotReader reader(input, input_index, nullptr);
  reader.Replay(root);
  return reader.Finish(root, out, error);
}

bool ReadTorchSnapshotStream(std::string head, ByteSource* source, const PickleLimits& limits,
                             const ListingSinkFactory& listing, const std::string& input, int input_index,
                             SnapshotEvents* out, uint64_t* bytes, PickleError* refused, std::string* error) {
  SnapshotReader reader(input, input_index, listing);
  PickleRef root;
  if (!ReadPickleStream(std::move(head), source, limits, &reader, &root, bytes, refused)) return false;
  reader.Replay(*root);  // what was not streamed (a layout with its lists elsewhere)
  return reader.Finish(*root, out, error);
}

}  // namespace oomlens
