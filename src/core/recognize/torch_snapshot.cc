#include "core/recognize/torch_snapshot.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

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

// Per device: the segments' figures and the blocks as a listing.
struct DeviceState {
  int64_t reserved = 0, allocated = 0, awaiting = 0, cached_free = 0, graph_pool = 0;
  int64_t segments = 0;
  bool expandable = false;
  std::vector<Allocation> blocks;
  std::unordered_set<int64_t> live;  // addresses of its allocated blocks
};

std::string Hex(int64_t address) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(address));
  return buf;
}

// The frames of a block: its own (a current snapshot), or the last of its history
// (the older layout: each reuse of the block appended one).
const PickleValue* BlockFrames(const PickleValue& block) {
  const PickleValue* frames = block.Get("frames");
  if (IsList(frames) && !frames->items.empty()) return frames;
  const PickleValue* history = block.Get("history");
  if (!IsList(history) || history->items.empty()) return nullptr;
  return history->items.back()->Get("frames");
}

const char* BlockState(const std::string& state) {
  if (state == "inactive") return "free";
  if (state == "active_awaiting_free" || state == "active_pending_free") return "reserved";
  return "allocated";
}

bool AddBlock(const PickleValue& block, const std::string& where, DeviceState* device, std::string* error) {
  auto size = IntOf(block.Get("size"));
  const PickleValue* state = block.Get("state");
  if (!size || *size < 0 || !state || state->type != Type::kString) {
    *error = where + " has no size and state (a snapshot's block has both)";
    return false;
  }
  const char* held = BlockState(state->text);
  if (std::string_view(held) == "free") AddSaturating(*size, &device->cached_free);
  else if (std::string_view(held) == "reserved") AddSaturating(*size, &device->awaiting);
  else AddSaturating(*size, &device->allocated);
  Allocation a;
  a.fields["size_bytes"] = SizeValue(static_cast<double>(*size));
  a.fields["state"] = TextValue(held);
  if (auto address = IntOf(block.Get("address"))) a.fields["offset"] = TextValue(Hex(*address));
  std::string owner = std::string_view(held) == "free" ? "" : OwnerFrame(BlockFrames(block));
  if (!owner.empty()) a.fields["owner"] = TextValue(owner);
  device->blocks.push_back(std::move(a));
  return true;
}

// The segment a block is part of (its address, as the HTML segment map draws it),
// and the block's address where the snapshot gives the segment's only.
void PlaceInSegment(const std::string& segment, int64_t segment_bytes, bool addressed, int64_t* cursor,
                    Allocation* block) {
  block->fields["segment"] = TextValue(segment);
  block->fields["segment_bytes"] = SizeValue(static_cast<double>(segment_bytes));
  if (addressed && !block->fields.count("offset")) block->fields["offset"] = TextValue(Hex(*cursor));
  AddSaturating(block->fields.at("size_bytes").integer, cursor);
}

// An allocated block's address, for the trace's allocations still live at the snapshot.
void NoteLive(const Allocation& block, std::unordered_set<int64_t>* live) {
  auto offset = block.fields.find("offset"), state = block.fields.find("state");
  if (offset == block.fields.end() || state == block.fields.end() || state->second.text != "allocated")
    return;
  live->insert(static_cast<int64_t>(std::strtoull(offset->second.text.c_str(), nullptr, 16)));
}

// A CUDA-graph private pool: any pool id but the default (0, 0).
bool InGraphPool(const PickleValue& segment) {
  const PickleValue* pool = segment.Get("segment_pool_id");
  if (!IsList(pool)) return false;
  for (const auto& id : pool->items)
    if (IntOf(id.get()).value_or(0) != 0) return true;
  return false;
}

// Devices one snapshot may describe: it is one process's (8 GPUs, 64 at the most
// today); a crafted one of 200,000 took 3.4 GB as as many records.
constexpr size_t kMaxDevices = 1024;

bool AddSegment(const PickleValue& segment, size_t index, std::map<int64_t, DeviceState>* devices,
                std::string* error) {
  std::string where = "segment " + std::to_string(index);
  auto total = IntOf(segment.Get("total_size"));
  const PickleValue* blocks = segment.Get("blocks");
  if (segment.type != Type::kDict || !total || *total < 0 || !IsList(blocks)) {
    *error = where + " is not a dict with total_size and blocks";
    return false;
  }
  int64_t id = IntOf(segment.Get("device")).value_or(0);
  if (!devices->count(id) && devices->size() >= kMaxDevices) {
    *error = where + " is on a device past the " + std::to_string(kMaxDevices) +
             " one snapshot may describe (a process has a few)";
    return false;
  }
  DeviceState& device = (*devices)[id];
  AddSaturating(*total, &device.reserved);
  ++device.segments;
  if (InGraphPool(segment)) AddSaturating(*total, &device.graph_pool);
  const PickleValue* expandable = segment.Get("is_expandable");
  if (expandable && expandable->type == Type::kBool && expandable->boolean) device.expandable = true;
  auto address = IntOf(segment.Get("address"));
  std::string segment_id = address ? Hex(*address) : "#" + std::to_string(index);
  int64_t cursor = address.value_or(0);  // blocks are listed in address order (1.13's have no address)
  for (size_t b = 0; b < blocks->items.size(); ++b) {
    const PickleValue& block = *blocks->items[b];
    if (block.type != Type::kDict) {
      *error = where + " block " + std::to_string(b) + " is not a dict";
      return false;
    }
    if (!AddBlock(block, where + " block " + std::to_string(b), &device, error)) return false;
    PlaceInSegment(segment_id, *total, address.has_value(), &cursor, &device.blocks.back());
    NoteLive(device.blocks.back(), &device.live);
  }
  return true;
}

void SetSize(Facts* facts, const char* name, int64_t bytes) {
  (*facts)[name] = SizeValue(static_cast<double>(bytes));
}

// What a device's trace recorded: its last OOM and how many, and the allocations it
// saw made and never freed (still live when the snapshot was taken), by frame.
struct TraceSummary {
  const PickleValue* last = nullptr;
  int64_t count = 0;
  int64_t allocs = 0, frees = 0;  // allocations the trace saw made, and freed
  struct Live {
    int64_t size = 0;
    const PickleValue* frames = nullptr;
  };
  std::unordered_map<int64_t, Live> live;  // by address: made in the trace and not freed
};

std::string_view ActionOf(const PickleValue& entry) {
  const PickleValue* action = entry.Get("action");
  return action && action->type == Type::kString ? std::string_view(action->text) : std::string_view();
}

TraceSummary SummarizeTrace(const PickleValue* trace) {
  TraceSummary t;
  if (!IsList(trace)) return t;
  for (const auto& entry : trace->items) {
    std::string_view action = ActionOf(*entry);
    auto addr = IntOf(entry->Get("addr"));
    if (action == "oom") {
      t.last = entry.get();
      ++t.count;
    } else if (action == "alloc" && addr) {
      auto size = IntOf(entry->Get("size"));
      t.live[*addr] = TraceSummary::Live{std::max<int64_t>(0, size.value_or(0)), entry->Get("frames")};
      ++t.allocs;
    } else if ((action == "free_requested" || action == "free_completed") && addr) {
      t.frees += static_cast<int64_t>(t.live.erase(*addr));
    }
  }
  return t;
}

// The allocations made in the trace and never freed that are still allocated blocks
// of the snapshot (a trace that disagrees with its segments counts only those), and
// the frame that made most of them (frames are shared by memo: each list's owner is
// found once).
void SetNeverFreed(const TraceSummary& t, const std::unordered_set<int64_t>& blocks, Facts* f) {
  if (t.allocs == 0) return;
  (*f)["trace_allocs"] = CountValue(t.allocs);
  (*f)["trace_frees"] = CountValue(t.frees);
  std::unordered_map<const PickleValue*, std::string> owners;
  std::map<std::string, std::pair<int64_t, int64_t>> by_owner;  // bytes, count
  int64_t bytes = 0, count = 0;
  for (const auto& [addr, live] : t.live) {
    if (!blocks.count(addr)) continue;
    ++count;
    auto known = owners.find(live.frames);
    if (known == owners.end()) known = owners.emplace(live.frames, OwnerFrame(live.frames)).first;
    auto& [owner_bytes, count] = by_owner[known->second];
    AddSaturating(live.size, &owner_bytes);
    ++count;
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

bool ExpandableInSettings(const PickleValue* settings) {
  const PickleValue* on = settings ? settings->Get("expandable_segments") : nullptr;
  return on && on->type == Type::kBool && on->boolean;
}

std::string AllocConf(const PickleValue* settings) {
  const PickleValue* conf = settings ? settings->Get("PYTORCH_CUDA_ALLOC_CONF") : nullptr;
  return conf && conf->type == Type::kString ? conf->text : "";
}

// A device's state as a record: an OOM when its trace recorded one (the last),
// else memory held, which may join the PyTorch failure it was taken for.
Event DeviceEvent(int64_t index, DeviceState&& device, const TraceSummary& oom, const PickleValue* settings,
                  const std::string& input, int input_index) {
  Event e;
  e.signature = "pytorch_snapshot";
  e.kind = oom.last ? "pytorch_cuda" : "memory_state";
  e.title = oom.last ? "PyTorch GPU out of memory (memory snapshot)"
                     : "Device memory held (PyTorch memory snapshot, no OOM in its trace)";
  if (!oom.last) e.joins = {"pytorch_"};
  e.device = "GPU " + std::to_string(index);
  e.where = Location{input, 0};
  e.input_index = input_index;
  e.record = true;
  Facts& f = e.facts;
  if (oom.last) {
    auto size = IntOf(oom.last->Get("size")), free = IntOf(oom.last->Get("device_free"));
    if (size && *size >= 0) SetSize(&f, "requested_bytes", *size);  // a byte count below 0 is no figure
    if (free && *free >= 0) SetSize(&f, "free_bytes", *free);
    f["trace_oom_count"] = CountValue(oom.count);
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
  SetNeverFreed(oom, device.live, &f);
  e.allocations = std::move(device.blocks);
  return e;
}

}  // namespace

std::string OwnerFrame(const PickleValue* frames) { return OwnerOf(Frames(frames)); }

bool ReadTorchSnapshot(const PickleValue& root, const std::string& input, int input_index,
                       SnapshotEvents* out, std::string* error) {
  const PickleValue* segments = root.type == Type::kDict ? root.Get("segments") : &root;
  if (!IsList(segments)) {
    *error =
        "the pickle holds no PyTorch memory snapshot (neither a dict with segments nor a list of segments)";
    return false;
  }
  std::map<int64_t, DeviceState> devices;
  for (size_t s = 0; s < segments->items.size(); ++s)
    if (!AddSegment(*segments->items[s], s, &devices, error)) return false;
  const PickleValue* traces = root.type == Type::kDict ? root.Get("device_traces") : nullptr;
  const PickleValue* settings = root.type == Type::kDict ? root.Get("allocator_settings") : nullptr;
  std::map<int64_t, TraceSummary> ooms;  // device traces are indexed by device
  for (size_t d = 0; IsList(traces) && d < traces->items.size(); ++d) {
    TraceSummary trace = SummarizeTrace(traces->items[d].get());
    if (trace.last || trace.allocs > 0) ooms[static_cast<int64_t>(d)] = std::move(trace);
    if (ooms.size() > kMaxDevices) {
      *error = "device trace " + std::to_string(d) + " is past the " + std::to_string(kMaxDevices) +
               " devices one snapshot may describe (a process has a few)";
      return false;
    }
  }
  for (const auto& [index, trace] : ooms)
    if (trace.last) devices.try_emplace(index);  // an OOM on a device with no segment
  const TraceSummary none;
  for (auto& [index, device] : devices) {
    auto oom = ooms.find(index);
    out->events.push_back(DeviceEvent(index, std::move(device), oom != ooms.end() ? oom->second : none,
                                      settings, input, input_index));
  }
  return true;
}

}  // namespace oomlens
