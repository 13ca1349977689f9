#include "cli/version.h"

#include "oomlens/render.h"
#include "oomlens/rules.h"

namespace oomlens {

std::string VersionLine() {
  RuleCounts counts = BuiltinRuleCounts();  // counted, not compiled: --version stays instant
  return std::string("oomlens ") + Version() + " (git " + GitRevision() + ", rules " + BuiltinRulesVersion() +
         ": " + std::to_string(counts.signatures) + " signatures, " + std::to_string(counts.causes) +
         " cause rules)";
}

}  // namespace oomlens
