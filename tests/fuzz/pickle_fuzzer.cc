// Fuzzes the plain-data unpickler (memory snapshots come from other machines) and
// the reading of what it returns as a snapshot, through to decided incidents:
// never crashes, hangs or grows past its limits; a value it returns is whole.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/analyze/finish.h"
#include "core/analyze/grouping.h"
#include "core/input/pickle_reader.h"
#include "core/recognize/torch_snapshot.h"
#include "core/rules/rule_data.h"
#include "tests/fuzz/builtin_rules.h"

namespace {

// What a snapshot read from root decides: every event grouped, derived and decided.
void Decide(const oomlens::PickleValue& root) {
  oomlens::SnapshotEvents read;
  std::string error;
  if (!oomlens::ReadTorchSnapshot(root, "fuzz.pickle", 0, &read, &error)) {
    if (error.empty()) std::abort();
    return;
  }
  oomlens::IncidentGrouper grouper;
  for (auto& event : read.events) grouper.Add(std::move(event));
  std::vector<oomlens::Incident> incidents = grouper.Take();
  oomlens::FinishIncidents(oomlens::RuleDataOf(oomlens::BuiltinRules()), "", &incidents);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  oomlens::PickleLimits limits;
  limits.max_values = 200000;
  limits.max_string_bytes = 1 << 20;
  oomlens::PickleRef root;
  oomlens::PickleError error;
  bool ok =
      oomlens::ReadPickle(std::string_view(reinterpret_cast<const char*>(data), size), limits, &root, &error);
  if (ok && !root) std::abort();
  if (ok) Decide(*root);
  if (!ok && (error.message.empty() || error.offset > size)) std::abort();
  return 0;
}
