#include "core/recognize/jax_profile.h"

#include <map>
#include <unordered_map>

#include "core/model/fact_values.h"
#include "core/recognize/frames.h"

namespace oomlens {
namespace {

// The failures of the XLA runtimes a JAX profile may be of (rules/signatures'
// kinds, as prefixes): TPU runtime and compiler, XLA GPU, the BFC allocator, the
// general reader's device allocations.
const char* const kXlaKinds[] = {"tpu_", "xla_", "bfc_", "device_alloc", "unrecognized_oom"};

// The index of the sample type named type, or -1.
int SampleIndex(const PprofProfile& p, std::string_view type) {
  for (size_t k = 0; k < p.sample_types.size(); ++k)
    if (p.String(p.sample_types[k].first) == type) return static_cast<int>(k);
  return -1;
}

// The profile's stacks by location id, each frame pointing into its strings.
class Stacks {
 public:
  explicit Stacks(const PprofProfile& p) : p_(p) {
    for (const auto& f : p.functions) functions_[f.id] = &f;
    for (const auto& l : p.locations) locations_[l.id] = &l;
  }
  std::vector<StackFrame> Of(const PprofSample& sample) const {
    std::vector<StackFrame> frames;
    for (uint64_t id : sample.locations) {
      auto location = locations_.find(id);
      if (location == locations_.end()) continue;
      for (const auto& line : location->second->lines) {
        auto function = functions_.find(line.function);
        if (function == functions_.end()) continue;
        frames.push_back(
            {p_.String(function->second->filename), line.line, p_.String(function->second->name)});
      }
    }
    return frames;
  }

 private:
  const PprofProfile& p_;
  std::unordered_map<uint64_t, const PprofFunction*> functions_;
  std::unordered_map<uint64_t, const PprofLocation*> locations_;
};

// The value of a sample's label named key: its text, or its number as text.
std::string LabelOf(const PprofProfile& p, const PprofSample& s, std::string_view key) {
  for (const auto& label : s.labels) {
    if (p.String(label.key) != key) continue;
    return label.str != 0 ? std::string(p.String(label.str)) : std::to_string(label.num);
  }
  return "";
}

struct Totals {
  int64_t buffer_bytes = 0, buffers = 0, executable_bytes = 0, executables = 0;
  std::map<std::string, int64_t> by_device;
};

void SetFacts(const Totals& t, Event* e) {
  Facts& f = e->facts;
  f["live_buffer_bytes"] = SizeValue(static_cast<double>(t.buffer_bytes));
  f["live_buffer_count"] = CountValue(t.buffers);
  if (t.executables > 0) f["executable_bytes"] = SizeValue(static_cast<double>(t.executable_bytes));
  if (t.by_device.size() == 1) e->device = t.by_device.begin()->first;
  if (t.by_device.size() < 2) return;
  int64_t most = 0, least = std::numeric_limits<int64_t>::max();
  for (const auto& [device, bytes] : t.by_device)
    most = std::max(most, bytes), least = std::min(least, bytes);
  f["device_count"] = CountValue(static_cast<int64_t>(t.by_device.size()));
  f["largest_device_bytes"] = SizeValue(static_cast<double>(most));
  f["smallest_device_bytes"] = SizeValue(static_cast<double>(least));
}

}  // namespace

bool ReadJaxProfile(const PprofProfile& profile, const std::string& input, int input_index, Event* out,
                    std::string* error) {
  int space = SampleIndex(profile, "space"), count = SampleIndex(profile, "allocations");
  if (space < 0) {
    *error = "a pprof profile without space samples (bytes): no device memory profile (a CPU profile?)";
    return false;
  }
  Event e;
  e.signature = "jax_device_memory_profile";
  e.kind = "memory_state";
  e.title = "Device memory held (JAX device memory profile)";
  e.where = Location{input, 0};
  e.input_index = input_index;
  e.record = true;
  e.joins.assign(std::begin(kXlaKinds), std::end(kXlaKinds));
  Stacks stacks(profile);
  Totals totals;
  for (size_t k = 0; k < profile.samples.size(); ++k) {
    const PprofSample& s = profile.samples[k];
    if (s.values.size() <= static_cast<size_t>(std::max(space, count)) || s.values[space] < 0) {
      *error = "sample " + std::to_string(k) + " has no byte count (space) of its own";
      return false;
    }
    int64_t bytes = s.values[space], n = count >= 0 ? std::max<int64_t>(s.values[count], 0) : 1;
    bool executable = LabelOf(profile, s, "kind") == "executable";
    AddSaturating(bytes, executable ? &totals.executable_bytes : &totals.buffer_bytes);
    AddSaturating(n, executable ? &totals.executables : &totals.buffers);
    Allocation a;
    a.fields["size_bytes"] = SizeValue(static_cast<double>(bytes));
    a.fields["type"] = TextValue(executable ? "executable" : "buffer");
    std::string owner = OwnerOf(stacks.Of(s));
    if (!owner.empty()) a.fields["owner"] = TextValue(owner);
    std::string device = LabelOf(profile, s, "device");
    if (!executable && !device.empty()) {
      AddSaturating(bytes, &totals.by_device[device]);
      a.fields["id"] = TextValue(device);
    }
    e.allocations.push_back(std::move(a));
  }
  SetFacts(totals, &e);
  *out = std::move(e);
  return true;
}

}  // namespace oomlens
