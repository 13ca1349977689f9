#include "core/analyze/decide.h"

#include <algorithm>

namespace oomlens {
namespace {

// A tip whose computed share rounds to 0% asks for what the figures cannot give.
constexpr const char* kNoRoom =
    "the figures leave it no room (a share that rounds to 0%): what else is allocated holds the memory, so "
    "no "
    "smaller size of this one alone fits";

std::vector<std::string> RenderLines(const std::vector<TemplateLine>& lines, const FactLookup& facts,
                                     bool first_only, bool tips = false) {
  std::vector<std::string> out;
  std::string text;
  bool no_room = false;
  for (const auto& line : lines) {
    if (line.when && !line.when->Evaluate(facts).truth()) continue;
    if (tips ? !line.text->RenderTip(facts, &text, &no_room) : !line.text->Render(facts, &text)) continue;
    out.push_back(text);
    if (first_only) break;
  }
  return out;
}

// Advice whose condition holds, highest rank first (rule order among equals), each
// with its basis; the rest, where the rule says why they do not apply, as "also consider".
// The lines are the deciding rule's, then the notes' that apply (phase advice).
void RenderAdvice(const std::vector<const TemplateLine*>& lines, const FactLookup& facts, Diagnosis* d) {
  struct Ranked {
    double rank;
    std::string text;
  };
  std::vector<Ranked> ranked;
  std::string text, part;
  bool no_room = false;
  for (const TemplateLine* each : lines) {
    const TemplateLine& line = *each;
    bool applies = !line.when || line.when->Evaluate(facts).truth();
    if (!line.text->RenderTip(facts, &text, &no_room)) {
      if (no_room && applies && line.text->Render(facts, &text))
        d->also_consider.push_back(Consideration{text, kNoRoom});
      continue;
    }
    if (!applies) {
      if (line.why_not && line.why_not->Render(facts, &part))
        d->also_consider.push_back(Consideration{text, part});
      continue;
    }
    if (line.basis && line.basis->Render(facts, &part)) text += " (" + part + ")";
    Value rank = line.rank ? line.rank->Evaluate(facts) : Value{};
    ranked.push_back(Ranked{rank.present ? rank.number : 0, text});
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const Ranked& a, const Ranked& b) { return a.rank > b.rank; });
  for (auto& r : ranked) d->advice.push_back(std::move(r.text));
}

// Notes hold evidence for or against a cause that any diagnosis shows (a flat
// memory series before an OOM speaks against a leak, whatever the cause).
// A note is evidence against its cause. Under a verdict of that very cause the two
// sources disagree, and the line says so and what the verdict rests on instead of
// standing beside it as if both held (newcomer review: "leak" over "no sign of a leak").
void AddNotes(const std::vector<const CauseRule*>& notes, const FactLookup& facts, Diagnosis* d) {
  std::string verdict_rests_on = d->evidence.empty() ? d->best.rule : d->evidence.front();
  for (const CauseRule* note : notes) {
    const CauseRule& rule = *note;
    for (auto& line : RenderLines(rule.evidence, facts, false)) {
      if (!rule.cause.empty() && rule.cause == d->best.cause) {
        line =
            "sources disagree: " + line + "; the " + d->best.cause + " verdict rests on " + verdict_rests_on;
      }
      d->evidence.push_back(std::move(line));
    }
  }
}

// The deciding rule, then the notes: each gives at most one formula line.
std::vector<const CauseRule*> FormulaRules(const CauseRule& best,
                                           const std::vector<const CauseRule*>& notes) {
  std::vector<const CauseRule*> rules = {&best};
  rules.insert(rules.end(), notes.begin(), notes.end());
  return rules;
}

// The notes whose kinds, phases and condition hold for the incident.
std::vector<const CauseRule*> NotesFor(const std::vector<const CauseRule*>& rules, const Incident& incident,
                                       const FactLookup& facts) {
  std::vector<const CauseRule*> notes;
  for (const CauseRule* rule : rules) {
    if (!rule->note || !RuleAppliesTo(*rule, incident.kind)) continue;
    if (rule->when && !rule->when->Evaluate(facts).truth()) continue;
    notes.push_back(rule);
  }
  return notes;
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
  if (rule.kinds.empty()) return true;
  bool only_exclusions = true;
  for (const auto& k : rule.kinds) {
    bool exclude = !k.empty() && k[0] == '!';
    if (exclude && k.compare(1, std::string::npos, kind) == 0) return false;
    if (!exclude && k == kind) return true;
    only_exclusions = only_exclusions && exclude;
  }
  return only_exclusions;  // ["!memory_growth"]: every kind but that one
}

void Decide(const RuleData& rules, Incident* incident) {
  FactLookup facts = LookupIn(incident->facts, incident->derived);
  std::vector<const CauseRule*> candidates = rules.CausesMayApplyTo(incident->kind);
  std::vector<const CauseRule*> matched;
  for (bool fallback : {false, true}) {
    for (const CauseRule* rule : candidates) {
      if (rule->note || rule->fallback != fallback || !RuleAppliesTo(*rule, incident->kind)) continue;
      if (rule->when && !rule->when->Evaluate(facts).truth()) continue;
      matched.push_back(rule);
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
  d.rule_description = DescriptionOf(best);
  for (size_t i = 1; i < matched.size(); ++i) {
    if (matched[i]->cause == best.cause) continue;
    d.alternatives.push_back(CauseMatch{matched[i]->cause, matched[i]->id, matched[i]->confidence,
                                        RenderLines(matched[i]->evidence, facts, false)});
  }
  auto summary = RenderLines(best.summary, facts, true);
  d.summary = summary.empty() ? best.cause : summary.front();
  d.evidence = RenderLines(best.evidence, facts, false);
  std::vector<const CauseRule*> notes = NotesFor(candidates, *incident, facts);
  std::vector<const TemplateLine*> advice;
  for (const CauseRule* rule : notes) {  // a phase's advice comes before the cause's at equal rank
    for (const auto& line : rule->advice) advice.push_back(&line);
  }
  for (const auto& line : best.advice) advice.push_back(&line);
  RenderAdvice(advice, facts, &d);
  for (const CauseRule* rule : notes) {  // a phase's fit comes first: the phase changes the fix
    auto fit = RenderLines(rule->fit, facts, true, true);
    if (!fit.empty()) {
      d.fit = fit.front();
      break;
    }
  }
  auto fit = d.fit.empty() ? RenderLines(best.fit, facts, true, true) : std::vector<std::string>{};
  if (!fit.empty()) d.fit = fit.front();
  for (const CauseRule* rule : FormulaRules(best, notes)) {
    auto formula = RenderLines(rule->formula, facts, true);
    if (!formula.empty()) d.formulas.push_back(formula.front());
  }
  d.docs = best.docs;
  for (const CauseRule* rule : notes) d.docs.insert(d.docs.end(), rule->docs.begin(), rule->docs.end());
  AddNotes(notes, facts, &d);
}

}  // namespace oomlens
