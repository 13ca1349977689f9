// A JAX device memory profile (jax.profiler.device_memory_profile(), the gzipped
// pprof save_device_memory_profile writes) as a memory record: what held device
// memory when it was taken, with no failure in it. Its samples are live buffers
// (label kind=buffer, with their device) and loaded executables (kind=executable),
// each with a count ("allocations") and bytes ("space") and the Python stack that
// made it; they become the record's listing, each owned by the innermost frame of
// the program's own code, so the listing names the largest allocating frame. A
// record joins the XLA runtimes' failures of the same scan (JoinMemoryRecords).
#ifndef OOMLENS_CORE_RECOGNIZE_JAX_PROFILE_H_
#define OOMLENS_CORE_RECOGNIZE_JAX_PROFILE_H_

#include <string>

#include "core/input/pprof_reader.h"
#include "core/model/event.h"

namespace oomlens {

/// The memory record of a profile read from input. False, with *error, when the
/// profile has no "space" samples (a CPU profile, say) or a sample lacks them.
bool ReadJaxProfile(const PprofProfile& profile, const std::string& input, int input_index, Event* out,
                    std::string* error);

}  // namespace oomlens

#endif  // OOMLENS_CORE_RECOGNIZE_JAX_PROFILE_H_
