#include "cli/version.h"

#include <vector>

#include "oomlens/render.h"
#include "oomlens/rules.h"

namespace oomlens {

std::string VersionLine() {
  RuleSet rules;
  std::vector<Problem> problems;
  rules.LoadBuiltin(&problems);
  size_t signatures = 0, causes = 0;
  for (const auto& e : rules.List()) (e.type == RuleEntry::Type::kSignature ? signatures : causes)++;
  return std::string("oomlens ") + Version() + " (git " + GitRevision() + ", rules " + BuiltinRulesVersion() +
         ": " + std::to_string(signatures) + " signatures, " + std::to_string(causes) + " cause rules)";
}

}  // namespace oomlens
