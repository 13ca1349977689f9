// `oomlens rules check`: every signature and cause rule proves itself on its samples.
#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "core/analyze/decide.h"
#include "core/analyze/derive.h"
#include "core/model/event.h"
#include "core/recognize/recognizer.h"
#include "core/rules/rule_data.h"
#include "oomlens/rules.h"

namespace oomlens {
namespace {

using json = nlohmann::json;

const std::set<std::string> kSignatureSampleKeys = {"text", "expect", "no_match", "allocations"};
const std::set<std::string> kCauseSampleKeys = {"kind", "facts", "expect", "summary"};

// A rule as written: a built-in rule loads without its samples and its
// line:column (`brief`), so its file is read again, whole, when first asked for.
class WrittenRules {
 public:
  const Signature& Of(const Signature& sig) {
    if (!sig.brief) return sig;
    for (const auto& whole : Builtin().signatures)
      if (whole.id == sig.id && whole.file == sig.file) return whole;
    return sig;
  }
  const CauseRule& Of(const CauseRule& rule) {
    if (!rule.brief) return rule;
    for (const auto& whole : Builtin().causes())
      if (whole.id == rule.id && whole.file == rule.file) return whole;
    return rule;
  }

 private:
  const RuleData& Builtin() {
    if (!builtin_) builtin_ = BuiltinRulesWhole();
    return *builtin_;
  }
  std::unique_ptr<RuleData> builtin_;
};

class SampleChecker {
 public:
  SampleChecker(const RuleData& rules, std::vector<Problem>* problems) : rules_(rules), problems_(problems) {}

  void CheckPatterns(const Signature& sig);
  void CheckSignature(const Signature& sig);
  void CheckCause(const CauseRule& rule);
  void CheckAdviceBasis(const CauseRule& rule);
  bool ok() const { return ok_; }

 private:
  void Fail(const std::string& where, const std::string& message, const std::string& help) {
    problems_->push_back(Problem{Problem::Severity::kError, where, message, help});
    ok_ = false;
  }
  bool Keys(const Sample& s, const std::set<std::string>& allowed);
  std::vector<Event> Recognize(const std::string& text);
  bool ValueOf(const std::string& where, const std::string& name, const json& v, FactValue* out);

  const RuleData& rules_;
  std::vector<Problem>* problems_;
  WrittenRules written_;
  bool ok_ = true;
};

// What a sample key's value must be, when it is not: "a string" ...; null when it is.
const char* WrongType(const std::string& key, const json& value) {
  if (key == "text" || key == "kind" || key == "summary") return value.is_string() ? nullptr : "a string";
  if (key == "no_match") return value.is_boolean() ? nullptr : "true or false";
  if (key == "allocations") return value.is_number_unsigned() ? nullptr : "a whole number";
  if (key == "facts") return value.is_object() ? nullptr : "an object of facts";
  if (key == "expect")
    return value.is_object() || value.is_boolean() ? nullptr : "an object of facts, or true/false";
  return nullptr;
}

bool SampleChecker::Keys(const Sample& s, const std::set<std::string>& allowed) {
  if (!s.json->is_object()) {
    Fail(s.where, "a sample must be an object", "see docs/rules.md, 'Samples'");
    return false;
  }
  for (const auto& item : s.json->items()) {
    if (allowed.count(item.key())) {
      if (const char* want = WrongType(item.key(), item.value())) {
        Fail(s.where, "sample key '" + item.key() + "' must be " + want, "see docs/rules.md, 'Samples'");
        return false;
      }
      continue;
    }
    std::string list;
    for (const auto& k : allowed) list += (list.empty() ? "" : ", ") + k;
    Fail(s.where, "unknown sample key '" + item.key() + "'", "allowed keys: " + list);
    return false;
  }
  return true;
}

std::vector<Event> SampleChecker::Recognize(const std::string& text) {
  std::vector<Problem> ignored;  // a sample's warnings show in its failed expectations
  return RecognizeText(rules_, text, /*emit_annotations=*/true, &ignored);
}

// Reads an expected value: a number (bytes) or a string as a log would print it.
bool SampleChecker::ValueOf(const std::string& where, const std::string& name, const json& v,
                            FactValue* out) {
  const FactInfo* info = FindFact(name);
  if (!info) {
    Fail(where, "sample names unknown fact '" + name + "'", "see 'oomlens rules facts'");
    return false;
  }
  std::string text = v.is_string() ? v.get<std::string>() : v.dump();
  std::string error;
  if (!MakeFact(*info, text, out, &error)) {
    Fail(where, "sample value for " + name + ": " + error, "write the value as the log prints it");
    return false;
  }
  return true;
}

void SampleChecker::CheckSignature(const Signature& sig) {
  const std::vector<Sample>& samples = written_.Of(sig).samples;
  if (samples.empty())
    Fail(written_.Of(sig).where, "signature '" + sig.id + "' has no samples",
         "add \"samples\": [{\"text\": \"<a real message>\", \"expect\": {...}}]");
  for (const Sample& s : samples) {
    if (!Keys(s, kSignatureSampleKeys)) continue;
    auto text = s.json->find("text");
    if (text == s.json->end() || !text->is_string()) {
      Fail(s.where, "sample needs \"text\": a message as printed", "add \"text\": \"...\"");
      continue;
    }
    std::vector<Event> events = Recognize(text->get<std::string>());
    const Event* mine = nullptr;
    for (const auto& e : events) {
      bool joined = std::find(e.listings.begin(), e.listings.end(), sig.id) != e.listings.end();
      if (!mine && (e.signature == sig.id || joined)) mine = &e;
    }
    if (s.json->value("no_match", false)) {
      if (mine)
        Fail(s.where, "signature '" + sig.id + "' matched a sample marked no_match",
             "narrow 'start' or the fact patterns");
      continue;
    }
    if (!mine) {
      std::string got = events.empty() ? "nothing" : "signature '" + events[0].signature + "'";
      Fail(s.where, "sample not recognised by signature '" + sig.id + "' (got " + got + ")",
           "check 'literals', 'start', 'require' and 'priority'");
      continue;
    }
    auto allocations = s.json->find("allocations");
    if (allocations != s.json->end()) {
      bool equal =
          allocations->is_number_unsigned() && allocations->get<uint64_t>() == mine->allocations.size();
      if (!equal)
        Fail(s.where,
             "sample: " + std::to_string(mine->allocations.size()) + " allocation entries read, expected " +
                 allocations->dump(),
             "fix 'items' or the expectation");
    }
    auto expect = s.json->find("expect");
    if (expect == s.json->end() || !expect->is_object()) continue;
    for (const auto& [name, want_json] : expect->items()) {
      if (want_json.is_null()) {  // the line is the signature's, and this fact is not read from it
        if (auto it = mine->facts.find(name); it != mine->facts.end())
          Fail(s.where, "sample: " + name + " is '" + it->second.text + "', expected it absent (null)",
               "narrow the fact pattern or the expectation");
        continue;
      }
      FactValue want;
      if (!ValueOf(s.where, name, want_json, &want)) continue;
      std::string got;
      bool equal = false;
      if (want.type == FactType::kIdentity) {
        const std::string* field = name == "replica"     ? &mine->replica
                                   : name == "partition" ? &mine->partition
                                   : name == "host"      ? &mine->host
                                   : name == "device"    ? &mine->device
                                                         : &mine->rank;
        got = *field;
        equal = got == want.text;
      } else if (auto it = mine->facts.find(name); it != mine->facts.end()) {
        got = it->second.text;
        equal = want.type == FactType::kText ? got == want.text : it->second.integer == want.integer;
      }
      if (!equal) {
        Fail(s.where,
             "sample: " + name + " is '" + (got.empty() ? "absent" : got) + "', expected '" + want.text + "'",
             "fix the fact pattern or the expectation");
      }
    }
  }
}

// A tip that computes a figure says what the figure rests on (docs/rules.md, "Advice").
void SampleChecker::CheckAdviceBasis(const CauseRule& rule) {
  for (size_t i = 0; i < rule.advice.size(); ++i) {
    const TemplateLine& line = rule.advice[i];
    if (line.basis || !line.text->Computes()) continue;
    problems_->push_back(
        Problem{Problem::Severity::kWarning, written_.Of(rule).where,
                "cause rule '" + rule.id + "': advice " + std::to_string(i + 1) +
                    " computes a figure but does not say what it rests on",
                "add \"basis\": \"...\" (the figures and the assumption), see docs/rules.md, 'Advice'"});
  }
}

void SampleChecker::CheckCause(const CauseRule& rule) {
  CheckAdviceBasis(rule);
  const std::vector<Sample>& samples = written_.Of(rule).samples;
  if (samples.empty())
    Fail(written_.Of(rule).where, "cause rule '" + rule.id + "' has no samples",
         "add \"samples\": [{\"facts\": {...}, \"expect\": true}]");
  for (const Sample& s : samples) {
    if (!Keys(s, kCauseSampleKeys)) continue;
    Incident incident;
    incident.kind = s.json->value("kind", rule.kinds.empty() ? std::string("sample") : rule.kinds[0]);
    auto facts = s.json->find("facts");
    bool good = facts != s.json->end() && facts->is_object();
    const json given = good ? *facts : json::object();
    for (const auto& [name, v] : given.items()) {
      FactValue value;
      good = ValueOf(s.where, name, v, &value) && good;
      incident.facts[name] = value;
    }
    auto expect = s.json->find("expect");
    if (!good || expect == s.json->end() || !expect->is_boolean()) {
      if (good) Fail(s.where, "sample needs \"facts\": {...} and \"expect\": true or false", "");
      continue;
    }
    DeriveFacts("", &incident);
    FactLookup lookup = LookupIn(incident.facts, incident.derived);
    bool fired = RuleAppliesTo(rule, incident.kind) && (!rule.when || rule.when->Evaluate(lookup).truth());
    if (fired != expect->get<bool>()) {
      Fail(s.where,
           "rule '" + rule.id + "' " + (fired ? "fired" : "did not fire") + " on a sample expecting " +
               (fired ? "false" : "true"),
           "fix 'when' or the sample's facts");
      continue;
    }
    auto summary = s.json->find("summary");
    if (summary != s.json->end() && fired) {
      std::string text;
      bool rendered = false;
      for (const auto& line : rule.summary) {
        if (line.when && !line.when->Evaluate(lookup).truth()) continue;
        if ((rendered = line.text->Render(lookup, &text))) break;
      }
      if (!rendered || text != summary->get<std::string>()) {
        Fail(s.where,
             "summary is '" + (rendered ? text : std::string("(none rendered)")) + "', expected '" +
                 summary->get<std::string>() + "'",
             "fix the summary template or the sample");
      }
    }
  }
}

// Every pattern compiles, and RE2 numbers its groups as the loader read them: the
// built-in rules' patterns are compiled on first use, and a scan must never be the
// first to learn that one is broken.
void SampleChecker::CheckPatterns(const Signature& sig) {
  auto check = [&](const LazyRegex& re) {
    std::string error;
    if (re && !re.Compile(&error))
      Fail(written_.Of(sig).where, "pattern '" + re.pattern() + "' of signature '" + sig.id + "': " + error,
           PatternHelp());
  };
  for (const LazyRegex* re : {&sig.start, &sig.complete, &sig.follow, &sig.reject}) check(*re);
  for (const auto* patterns : {&sig.facts, &sig.input_facts})
    for (const auto& pattern : *patterns) check(pattern.re);
  if (sig.items) {
    check(sig.items->start);
    for (const auto& field : sig.items->fields) check(field.re);
  }
  for (const auto& aggregate : sig.aggregates) check(aggregate.re);
  for (const auto& refinement : sig.kind_when) check(refinement.re);
}

}  // namespace

bool RuleSet::CheckSamples(std::vector<Problem>* problems) const {
  SampleChecker checker(*data_, problems);
  for (const auto& sig : data_->signatures) checker.CheckPatterns(sig);
  for (const auto& sig : data_->signatures) checker.CheckSignature(sig);
  for (const auto& rule : data_->causes()) checker.CheckCause(rule);
  const auto& deferred = data_->deferred_problems();  // the built-in cause files, read on first use
  problems->insert(problems->end(), deferred.begin(), deferred.end());
  return checker.ok() && deferred.empty();
}

}  // namespace oomlens
