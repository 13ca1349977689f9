// Fuzzes the rule loader: arbitrary bytes as a rule file, then every sample run.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "oomlens/rules.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (64 << 10)) return 0;
  oomlens::RuleSet rules;
  std::vector<oomlens::Problem> problems;
  rules.LoadText("fuzz.json", std::string_view(reinterpret_cast<const char*>(data), size), &problems);
  rules.CheckSamples(&problems);
  return 0;
}
