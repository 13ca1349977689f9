// Fuzzes the size parser: never crashes, never returns a negative tolerance, and
// the one-pass reader of the simple shape ("3.30G") reads as the general reader,
// which a leading space sends the same text to.
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
    auto general = oomlens::ParseSize(" " + text, &error, decimal);
    if (parsed.has_value() != general.has_value()) std::abort();
    if (!parsed) continue;
    if (parsed->bytes != general->bytes || parsed->tolerance != general->tolerance) std::abort();
    if (parsed->tolerance < 0) std::abort();
    (void)oomlens::FormatSize(parsed->bytes);
  }
  return 0;
}
