// Fuzzes the pprof wire reader (device memory profiles come from other machines)
// and the reading of what it returns as a JAX profile, through to a summarised
// memory record: never crashes or hangs; a refusal says where and why.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/analyze/derive.h"
#include "core/analyze/grouping.h"
#include "core/input/pprof_reader.h"
#include "core/recognize/jax_profile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  oomlens::PprofProfile profile;
  uint64_t offset = 0;
  std::string error;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (!oomlens::ReadPprof(bytes, &profile, &offset, &error)) {
    if (error.empty() || offset > size) std::abort();
    return 0;
  }
  oomlens::Event record;
  if (!oomlens::ReadJaxProfile(profile, "fuzz.prof", 0, &record, &error)) {
    if (error.empty()) std::abort();
    return 0;
  }
  oomlens::Incident memory = oomlens::IncidentOf(std::move(record));
  oomlens::DeriveFacts("", &memory);
  return 0;
}
