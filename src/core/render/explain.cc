// `oomlens explain TOPIC`: what an error code, kind or cause means, generated
// from the same rule data the diagnosis uses.
#include <re2/re2.h>

#include <algorithm>
#include <set>

#include "core/rules/rule_data.h"
#include "oomlens/render.h"

namespace oomlens {
namespace {

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// "- text", then what decides where it goes: "when ...; rank ...; basis ...; else: ...".
void ExplainAdvice(const TemplateLine& advice, std::ostream& out) {
  out << "    - " << advice.source << "\n";
  std::string how;
  auto add = [&how](const char* label, const std::string& part) {
    if (!part.empty()) how += (how.empty() ? "" : "; ") + std::string(label) + part;
  };
  add("when ", advice.when ? advice.when->source() : "");
  add("rank ", advice.rank_source);
  add("basis: ", advice.basis_source);
  add("otherwise also consider, because: ", advice.why_not_source);
  if (!how.empty()) out << "      (" << how << ")\n";
}

void ExplainCauses(const RuleData& data, const std::set<std::string>& kinds, const std::string& cause,
                   std::ostream& out) {
  out << "\nCauses oomlens tells apart, and how (advice: when it applies, its rank, higher first, and what "
         "its\n"
         "figures rest on; a tip that does not apply is shown under 'also consider' with why not):\n";
  for (const auto& rule : data.causes) {
    bool for_kind = rule.kinds.empty()
                        ? kinds.empty() || rule.fallback
                        : std::any_of(rule.kinds.begin(), rule.kinds.end(),
                                      [&kinds](const std::string& k) { return kinds.count(k) > 0; });
    if (!(for_kind || rule.cause == cause)) continue;
    char confidence[16];
    std::snprintf(confidence, sizeof confidence, "%.2f", rule.confidence);
    out << "\n  " << rule.cause << " (rule " << rule.id << ", confidence " << confidence << ")\n";
    out << "    when: "
        << (rule.fallback ? "no other rule matches"
            : rule.when   ? rule.when->source()
                          : "always")
        << "\n";
    if (!rule.summary.empty()) out << "    says: " << rule.summary.back().source << "\n";
    for (const auto& advice : rule.advice) ExplainAdvice(advice, out);
    for (const auto& fit : rule.fit)
      out << "    would fit: " << fit.source << (fit.when ? " (when " + fit.when->source() + ")" : "")
          << "\n";
    for (const auto& doc : rule.docs) out << "    see " << doc << "\n";
  }
}

}  // namespace

bool RenderExplanation(const RuleSet& rules, const std::string& topic, std::ostream& out) {
  const RuleData& data = RuleDataOf(rules);
  std::set<std::string> kinds;
  std::string code = Upper(topic);
  for (const auto& sig : data.signatures) {
    if (!(sig.code == code || sig.kind == topic) || !sig.annotates.empty()) continue;
    if (kinds.insert(sig.kind).second) {
      out << (sig.code.empty() ? sig.kind : sig.code + " (" + sig.kind + ")") << ": " << sig.title << "\n";
    }
    if (!sig.description.empty()) out << "  " << sig.description << "\n";
  }
  bool is_cause = std::any_of(data.causes.begin(), data.causes.end(),
                              [&topic](const CauseRule& r) { return r.cause == topic; });
  if (kinds.empty() && !is_cause) return false;
  if (!kinds.empty()) {
    std::set<std::string> facts;
    for (const auto& sig : data.signatures) {
      if (!kinds.count(sig.kind)) continue;
      for (const auto& pattern : sig.facts)
        for (const auto& group : pattern.groups) facts.insert(group.info->name);
    }
    out << "\nNumbers and names it reads:\n";
    for (const auto& name : facts) {
      const FactInfo* info = FindFact(name);
      out << "  " << name << std::string(name.size() < 30 ? 30 - name.size() : 1, ' ') << info->description
          << "\n";
    }
  } else {
    out << topic << ": a cause oomlens can decide\n";
  }
  ExplainCauses(data, kinds, is_cause ? topic : "", out);
  return true;
}

}  // namespace oomlens
