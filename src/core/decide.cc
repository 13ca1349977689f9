#include "core/decide.h"

#include <algorithm>

namespace oomlens {
namespace {

std::vector<std::string> RenderLines(const std::vector<TemplateLine>& lines, const FactLookup& facts,
                                     bool first_only) {
  std::vector<std::string> out;
  std::string text;
  for (const auto& line : lines) {
    if (line.when && !line.when->Evaluate(facts).truth()) continue;
    if (!line.text->Render(facts, &text)) continue;
    out.push_back(text);
    if (first_only) break;
  }
  return out;
}

}  // namespace

FactLookup LookupIn(const Facts& facts, const Facts& derived) {
  return [&facts, &derived](const std::string& name) -> const FactValue* {
    auto it = facts.find(name);
    if (it != facts.end()) return &it->second;
    it = derived.find(name);
    return it != derived.end() ? &it->second : nullptr;
  };
}

bool RuleAppliesTo(const CauseRule& rule, const std::string& kind) {
  return rule.kinds.empty() || std::find(rule.kinds.begin(), rule.kinds.end(), kind) != rule.kinds.end();
}

void Decide(const RuleData& rules, Incident* incident) {
  FactLookup facts = LookupIn(incident->facts, incident->derived);
  std::vector<const CauseRule*> matched;
  for (bool fallback : {false, true}) {
    for (const auto& rule : rules.causes) {
      if (rule.fallback != fallback || !RuleAppliesTo(rule, incident->kind)) continue;
      if (rule.when && !rule.when->Evaluate(facts).truth()) continue;
      matched.push_back(&rule);
    }
    if (!matched.empty()) break;
  }
  std::stable_sort(matched.begin(), matched.end(),
                   [](const CauseRule* a, const CauseRule* b) { return a->confidence > b->confidence; });
  Diagnosis& d = incident->diagnosis;
  d = Diagnosis{};
  if (matched.empty()) {
    d.best = CauseMatch{"unknown", "", 0};
    d.summary = "no cause rule matched this " + incident->kind + " incident";
    return;
  }
  const CauseRule& best = *matched.front();
  d.best = CauseMatch{best.cause, best.id, best.confidence};
  for (size_t i = 1; i < matched.size(); ++i) {
    if (matched[i]->cause == best.cause) continue;
    d.alternatives.push_back(CauseMatch{matched[i]->cause, matched[i]->id, matched[i]->confidence});
  }
  auto summary = RenderLines(best.summary, facts, true);
  d.summary = summary.empty() ? best.cause : summary.front();
  d.evidence = RenderLines(best.evidence, facts, false);
  d.advice = RenderLines(best.advice, facts, false);
  d.docs = best.docs;
}

}  // namespace oomlens
