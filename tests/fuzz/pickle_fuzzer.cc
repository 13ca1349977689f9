// Fuzzes the plain-data unpickler (memory snapshots come from other machines) and
// the reading of what it returns as a snapshot, through to decided incidents:
// never crashes, hangs or grows past its limits; a value it returns is whole. The
// streamed read (what a scan does) reads the same bytes and, where both read a
// snapshot, finds as many devices.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/analyze/allocation_summary.h"
#include "core/analyze/finish.h"
#include "core/analyze/grouping.h"
#include "core/input/line_reader.h"
#include "core/input/pickle_reader.h"
#include "core/recognize/torch_snapshot.h"
#include "core/rules/rule_data.h"
#include "tests/fuzz/builtin_rules.h"

namespace {

// What a snapshot read from root decides: every event grouped, derived and decided.
// Returns the events read, or -1.
long Decide(const oomlens::PickleValue& root) {
  oomlens::SnapshotEvents read;
  std::string error;
  if (!oomlens::ReadTorchSnapshot(root, "fuzz.pickle", 0, &read, &error)) {
    if (error.empty()) std::abort();
    return -1;
  }
  long events = static_cast<long>(read.events.size());
  oomlens::IncidentGrouper grouper;
  for (auto& event : read.events) grouper.Add(std::move(event));
  std::vector<oomlens::Incident> incidents = grouper.Take();
  oomlens::FinishIncidents(oomlens::RuleDataOf(oomlens::BuiltinRules()), "", &incidents);
  return events;
}

// The streamed read of the same bytes: the events it read, or -1.
long Streamed(std::string_view data, const oomlens::PickleLimits& limits) {
  oomlens::StringSource source(data);
  oomlens::SnapshotEvents read;
  oomlens::PickleError refused;
  std::string error;
  uint64_t bytes = 0;
  auto summarizer = [] {
    return std::make_unique<oomlens::ListingSummarizer>(oomlens::kMaxAllocationsPerReport);
  };
  if (!oomlens::ReadTorchSnapshotStream("", &source, limits, summarizer, "fuzz.pickle", 0, &read, &bytes,
                                        &refused, &error)) {
    if (error.empty() && refused.message.empty()) std::abort();
    return -1;
  }
  if (bytes > data.size()) std::abort();
  return static_cast<long>(read.events.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  oomlens::PickleLimits limits;
  limits.max_values = 200000;
  limits.max_string_bytes = 1 << 20;
  oomlens::PickleRef root;
  oomlens::PickleError error;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  bool ok = oomlens::ReadPickle(bytes, limits, &root, &error);
  if (ok && !root) std::abort();
  long whole = ok ? Decide(*root) : -1;
  if (!ok && (error.message.empty() || error.offset > size)) std::abort();
  long streamed = Streamed(bytes, limits);
  // A streamed read holds less, and refuses a block fetched after it let it go.
  if (whole >= 0 && streamed >= 0 && whole != streamed) std::abort();
  return 0;
}
