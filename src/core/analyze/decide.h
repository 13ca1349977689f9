// Decision: cause rules (data) applied to an incident's facts.
#ifndef OOMLENS_CORE_ANALYZE_DECIDE_H_
#define OOMLENS_CORE_ANALYZE_DECIDE_H_

#include "core/rules/expr.h"
#include "core/rules/rule_data.h"
#include "oomlens/report.h"

namespace oomlens {

/// Looks facts up in facts, then in derived.
FactLookup LookupIn(const Facts& facts, const Facts& derived);

/// True when rule applies to kind (no kinds listed: every kind).
bool RuleAppliesTo(const CauseRule& rule, const std::string& kind);

/// Fills incident->diagnosis: every matching rule, the most confident first;
/// fallback rules only when nothing else matched.
void Decide(const RuleData& rules, Incident* incident);

}  // namespace oomlens

#endif  // OOMLENS_CORE_ANALYZE_DECIDE_H_
