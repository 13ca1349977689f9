// The built-in rules, loaded once for every input a fuzzer runs.
#ifndef OOMLENS_TESTS_FUZZ_BUILTIN_RULES_H_
#define OOMLENS_TESTS_FUZZ_BUILTIN_RULES_H_

#include <cstdlib>
#include <vector>

#include "oomlens/rules.h"

namespace oomlens {

inline const RuleSet& BuiltinRules() {
  static const RuleSet* rules = [] {
    auto* loaded = new RuleSet;  // kept for the process: fuzzers never end cleanly
    std::vector<Problem> problems;
    if (!loaded->LoadBuiltin(&problems)) std::abort();
    return loaded;
  }();
  return *rules;
}

}  // namespace oomlens

#endif  // OOMLENS_TESTS_FUZZ_BUILTIN_RULES_H_
