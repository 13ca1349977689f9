// Fuzzes the unwrapping of JSON log lines: the hand reader of flat objects must
// give exactly what the JSON parser gives (text lines, host, or not JSON).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "core/input/unwrap.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view line(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> fast_texts, parsed_texts;
  std::string fast_host, parsed_host;
  bool fast = oomlens::UnwrapJson(line, &fast_texts, &fast_host);
  bool parsed = oomlens::UnwrapJsonByParser(line, &parsed_texts, &parsed_host);
  if (fast != parsed || (fast && (fast_texts != parsed_texts || fast_host != parsed_host))) std::abort();
  return 0;
}
