// `oomlens explain TOPIC`: what an error code, kind or cause means, generated
// from the same rule data the diagnosis uses. Plainly by default (what it means,
// where to read more, the causes told apart in a sentence each); with detail, each
// rule's condition and every tip it can give, as written in the rules.
#include <algorithm>
#include <set>
#include <sstream>

#include "core/rules/rule_data.h"
#include "oomlens/render.h"

namespace oomlens {
namespace {

constexpr size_t kWidth = 88;  // the widest line of the plain explanation

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// text broken at spaces into lines of at most kWidth, each after `indent`, the
// first after `first` instead.
std::string Wrapped(const std::string& text, const std::string& first, const std::string& indent) {
  std::istringstream words(text);
  std::string out, line = first;
  bool empty = true;
  for (std::string word; words >> word;) {
    if (!empty && line.size() + 1 + word.size() > kWidth) {
      out += line + "\n";
      line = indent;
      empty = true;
    }
    line += (empty ? "" : " ") + word;
    empty = false;
  }
  return out + line + "\n";
}

std::string Confidence(const CauseRule& rule) {
  char text[16];
  std::snprintf(text, sizeof text, "%.2f", rule.confidence);
  return text;
}

bool RuleForKinds(const CauseRule& rule, const std::set<std::string>& kinds) {
  return std::any_of(rule.kinds.begin(), rule.kinds.end(),
                     [&kinds](const std::string& k) { return kinds.count(k) > 0; });
}

// The rules the topic is about, the surest first: a cause's own rules, or those of
// the kinds (the fallback only when no other rule applies to them).
std::vector<const CauseRule*> TopicRules(const RuleData& data, const std::set<std::string>& kinds,
                                         const std::string& cause) {
  std::vector<const CauseRule*> rules;
  for (const auto& rule : data.causes()) {
    bool applies = cause.empty() ? RuleForKinds(rule, kinds) : rule.cause == cause;
    if (applies) rules.push_back(&rule);
  }
  if (rules.empty() && cause.empty()) {
    for (const auto& rule : data.causes())
      if (rule.fallback) rules.push_back(&rule);
  }
  std::stable_sort(rules.begin(), rules.end(), [](const CauseRule* a, const CauseRule* b) {
    return a->note != b->note ? b->note : a->confidence > b->confidence;
  });
  return rules;
}

// The page most of the topic's rules point to (the surest rule's on a tie).
std::string MainDoc(const std::vector<const CauseRule*>& rules) {
  std::vector<std::pair<std::string, size_t>> counts;  // in the rules' order
  for (const CauseRule* rule : rules) {
    for (const auto& doc : rule->docs) {
      auto it = std::find_if(counts.begin(), counts.end(), [&doc](const auto& c) { return c.first == doc; });
      if (it == counts.end()) counts.emplace_back(doc, 1);
      else ++it->second;
    }
  }
  std::stable_sort(counts.begin(), counts.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return counts.empty() ? "" : counts.front().first;
}

// "label: text (when ...)" for each line of a rule's "fit" or "formula".
void ExplainLines(const char* label, const std::vector<TemplateLine>& lines, std::ostream& out) {
  for (const auto& line : lines)
    out << "    " << label << ": " << line.source << (line.when ? " (when " + line.when->source() + ")" : "")
        << "\n";
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

void ExplainRuleInDetail(const CauseRule& rule, std::ostream& out) {
  out << "\n  " << (rule.cause.empty() ? "advice" : rule.cause) << " (rule " << rule.id << ", "
      << (rule.note ? "a note" : "confidence " + Confidence(rule)) << ")\n";
  out << Wrapped(DescriptionOf(rule), "    ", "    ");
  out << "    when: "
      << (rule.fallback ? "no other rule matches"
          : rule.when   ? rule.when->source()
                        : "always")
      << "\n";
  if (!rule.summary.empty()) out << "    says: " << rule.summary.back().source << "\n";
  for (const auto& advice : rule.advice) ExplainAdvice(advice, out);
  ExplainLines("would fit", rule.fit, out);
  ExplainLines("formula", rule.formula, out);
  for (const auto& doc : rule.docs) out << "    see " << doc << "\n";
}

// One line per rule: its cause (for a kind) and what it means.
void ExplainRulesPlainly(const std::vector<const CauseRule*>& rules, bool name_causes, std::ostream& out) {
  size_t width = 0;
  for (const CauseRule* rule : rules) width = std::max(width, rule->cause.size());
  for (const CauseRule* rule : rules) {
    std::string label = !rule->note           ? "confidence " + Confidence(*rule)
                        : rule->cause.empty() ? "advice only"
                                              : "evidence only";
    std::string sentence = DescriptionOf(*rule) + " (" + rule->id + ", " + label + ")";
    if (!name_causes) {
      out << Wrapped(sentence, "  - ", "    ");
      continue;
    }
    std::string head = "  " + rule->cause + std::string(width - rule->cause.size(), ' ') + "  ";
    out << Wrapped(sentence, head, std::string(head.size(), ' '));
  }
}

// The kinds a code or kind name stands for, with their titles and what they read.
std::set<std::string> ExplainKinds(const RuleData& data, const std::string& topic, bool detail,
                                   std::ostream& out) {
  std::set<std::string> kinds;
  std::string code = Upper(topic);
  for (const auto& sig : data.signatures) {
    if (!(sig.code == code || sig.kind == topic) || !sig.annotates.empty()) continue;
    bool first = kinds.insert(sig.kind).second;
    if (first)
      out << (sig.code.empty() ? sig.kind : sig.code + " (" + sig.kind + ")") << ": " << sig.title << "\n";
    if (!sig.description.empty() && (first || detail)) out << Wrapped(sig.description, "  ", "  ");
  }
  return kinds;
}

void ExplainFacts(const RuleData& data, const std::set<std::string>& kinds, std::ostream& out) {
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
}

}  // namespace

bool RenderExplanation(const RuleSet& rules, const std::string& topic, bool detail, std::ostream& out) {
  const RuleData& data = RuleDataOf(rules);
  std::ostringstream head;
  std::set<std::string> kinds = ExplainKinds(data, topic, detail, head);
  bool is_cause = std::any_of(data.causes().begin(), data.causes().end(),
                              [&topic](const CauseRule& r) { return r.cause == topic; });
  if (kinds.empty() && !is_cause) return false;
  std::string cause = kinds.empty() ? topic : "";
  if (!cause.empty()) {
    auto meaning = data.meanings().find(cause);
    head << Wrapped(meaning == data.meanings().end() ? "a cause oomlens can decide." : meaning->second,
                    cause + ": ", "  ");
  }
  std::vector<const CauseRule*> topic_rules = TopicRules(data, kinds, cause);
  out << head.str();
  std::string doc = MainDoc(topic_rules);
  if (!doc.empty()) out << "  Read more: " << doc << "\n";
  out << "  How oomlens decides a cause: docs/causes.md\n";
  if (detail) {
    if (!kinds.empty()) ExplainFacts(data, kinds, out);
    out << "\nHow each rule decides (advice: when it applies, its rank, higher first, and what its figures\n"
           "rest on; a tip that does not apply is shown under 'also consider' with why not):\n";
    for (const CauseRule* rule : topic_rules) ExplainRuleInDetail(*rule, out);
    return true;
  }
  out << "\n"
      << (cause.empty() ? "The causes oomlens tells apart for it, the surest first:\n"
                        : "oomlens calls an incident " + cause + " when (the surest first):\n");
  ExplainRulesPlainly(topic_rules, cause.empty(), out);
  out << "\n"
      << Wrapped("'oomlens explain --detail " + topic +
                     "' adds the figures it reads, each rule's condition and every tip it can give.",
                 "", "");
  return true;
}

}  // namespace oomlens
