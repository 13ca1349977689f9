// Fuzzes the plain-data unpickler (memory snapshots come from other machines):
// never crashes, hangs or grows past its limits; a value it returns is whole.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/input/pickle_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  oomlens::PickleLimits limits;
  limits.max_values = 200000;
  limits.max_string_bytes = 1 << 20;
  oomlens::PickleRef root;
  oomlens::PickleError error;
  bool ok =
      oomlens::ReadPickle(std::string_view(reinterpret_cast<const char*>(data), size), limits, &root, &error);
  if (ok && !root) std::abort();
  if (!ok && (error.message.empty() || error.offset > size)) std::abort();
  return 0;
}
