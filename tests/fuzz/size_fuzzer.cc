// Fuzzes the size parser: never crashes, never returns a negative tolerance.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "oomlens/size.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  std::string error;
  for (bool decimal : {false, true}) {
    auto parsed = oomlens::ParseSize(text, &error, decimal);
    if (!parsed) continue;
    if (parsed->tolerance < 0) std::abort();
    (void)oomlens::FormatSize(parsed->bytes);
  }
  return 0;
}
