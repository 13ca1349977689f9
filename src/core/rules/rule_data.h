// Compiled signatures and cause rules (internal to the core).
#ifndef OOMLENS_CORE_RULES_RULE_DATA_H_
#define OOMLENS_CORE_RULES_RULE_DATA_H_

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/rules/expr.h"
#include "core/rules/prefilter.h"
#include "core/rules/signature_patterns.h"
#include "core/rules/simple_pattern.h"
#include "core/rules/template.h"
#include "oomlens/facts.h"
#include "oomlens/rules.h"

namespace re2 {
class RE2;
}

namespace oomlens {

/// A named group of a pattern and the fact (or allocation field) it writes.
/// A group named "<fact>__decimal" reads sizes in SI units (MB = 10^6 bytes);
/// "<fact>__gib" (__mib, __gb, __mb) reads a bare number in that unit;
/// "<fact>__words" a bare number of 32-bit words.
struct FactGroup {
  int index = 0;
  const FactInfo* info = nullptr;
  bool decimal = false;
  std::string unit;            // appended to a bare number before it is read as a size
  int64_t bytes_per_unit = 1;  // a bare count of words: bytes each
  /// The signature's "values" for this fact: printed text -> the value written.
  std::shared_ptr<const std::map<std::string, std::string>> values;
};

/// A regex whose named groups write facts.
struct FactPattern {
  LazyRegex re;
  std::vector<FactGroup> groups;
  std::string prefix;  // literal text every match starts with ("" when unknown): see MatchFactsFrom
  std::shared_ptr<const SimplePattern> simple;  // the same pattern without RE2, when it can be
};

/// How the entries of a listing inside a message are read, line by line.
struct ItemSpec {
  LazyRegex start;                  // a line that opens an entry (may capture fields)
  bool each = false;                // instead: every match of start in the text is an entry
  std::vector<FactPattern> fields;  // every line of an entry is matched by each
  int max_items = 10000;
};

/// A sample carried by a signature or a rule, with where it was written.
struct Sample {
  std::shared_ptr<const nlohmann::json> json;  // as written; only the checker reads it
  std::string where;                           // file:line:col
};

/// Every match of a pattern (one capturing group, a size or number) in the
/// message's lines adds to a sum, a maximum and a count.
struct Aggregate {
  LazyRegex re;
  std::string prefix;               // literal text every match starts with ("" when unknown)
  const FactInfo* sum = nullptr;    // may be null
  const FactInfo* max = nullptr;    // may be null
  const FactInfo* count = nullptr;  // may be null
};

/// The message's kind becomes `kind` when `re` matches its text.
struct KindRefinement {
  LazyRegex re;
  std::string kind;
};

/// How a message family is recognised. See docs/rules.md.
struct Signature {
  std::string id, kind, code, title, file, where, description;
  int priority = 0;
  std::vector<std::string> literals;                  // prefilter: a start line holds one
  std::vector<int> literal_indices;                   // the same, as positions in RuleData::literals
  LazyRegex start;                                    // opens a message
  std::shared_ptr<const SimplePattern> start_simple;  // start without RE2, when it can be
  LazyRegex complete;                                 // the core message is all there
  LazyRegex follow;                                   // lines that may follow a complete message
  std::vector<FactPattern> facts;
  std::vector<FactPattern> input_facts;  // read from the input's file name (an XLA dump's module and program)
  std::vector<std::string> require;      // facts without which there is no event
  std::shared_ptr<ItemSpec> items;       // an allocation listing, may be null
  std::vector<std::string> annotates;    // not an incident: facts go to the next event of these kinds
  std::vector<std::string> after;        // a listing right after an event of these kinds: joins it
  std::vector<std::string> before;       // a listing right before an event of these kinds: joins it
  std::vector<std::string> joins;        // a memory record, no failure: joins the last failure of these kinds
  bool listing() const { return !after.empty() || !before.empty(); }  // joins an event; no message itself
  bool series = false;    // a memory figure: collected into series, no incident
  bool fragment = false;  // one sentence of a message: continues an open one of its kind
  bool indented = false;  // a figure's facts are read from its line as displayed: log prefix and indent kept
  double match = 1;       // how sure a match is that this family failed (structural: lower)
  std::string activity;   // "compile" (facts: program), "step", "phase", "frame" or "budget": no incident
  std::string phase;  // a failure of this family happens in this phase; "phase"/"frame": the line shows it
  std::vector<Aggregate> aggregates;
  LazyRegex reject;  // a message matching this is a known non-failure
  std::vector<KindRefinement> kind_when;
  int max_wrap = 4;    // lines joined before completion
  int max_lines = 40;  // lines in one message at most
  std::vector<Sample> samples;
  bool brief = false;  // built in: loaded without samples and line:column (the checker reads them)
};

/// A line of a summary, evidence or advice, shown when its condition holds.
/// Advice lines may also rank themselves, say what their figures rest on, and
/// say why they do not apply (docs/rules.md, "Advice").
struct TemplateLine {
  std::shared_ptr<Expr> when;  // may be null
  std::shared_ptr<Template> text;
  std::string source;                 // the template as written (for `oomlens explain`)
  std::shared_ptr<Expr> rank;         // advice: a number, higher first; null: 0
  std::shared_ptr<Template> basis;    // advice: what its computed figures rest on; may be null
  std::shared_ptr<Template> why_not;  // advice: shown under "also consider" when `when` fails; may be null
  std::string rank_source, basis_source, why_not_source;
};

/// How a cause is decided from facts. See docs/rules.md.
struct CauseRule {
  std::string id, cause, file, where, description;
  std::vector<std::string> kinds;  // empty: any kind
  std::shared_ptr<Expr> when;
  double confidence = 0.5;
  bool fallback = false;  // used only when no other rule matches
  bool note = false;      // decides no cause: when it holds, its evidence and advice join any diagnosis
  std::vector<TemplateLine> summary, evidence, advice;
  std::vector<TemplateLine> fit;  // what would fit: the first that holds and renders
  std::vector<TemplateLine>
      formula;  // an estimate from the config's figures: the first that holds and renders
  std::vector<std::string> docs;
  std::vector<Sample> samples;
  bool brief = false;  // built in: loaded without samples and line:column (the checker reads them)
};

/// What a cause rule means for any incident: its description or, for a rule written
/// without one, a sentence of its cause (SARIF's fullDescription, `oomlens explain`).
inline std::string DescriptionOf(const CauseRule& rule) {
  return rule.description.empty() ? "Out of memory, decided as " + rule.cause + " by this rule."
                                  : rule.description;
}

/// Signatures are compiled as they load. The built-in cause files (rules/causes/)
/// are read the first time a cause rule or a meaning is asked for: a scan that
/// finds no OOM never reads them, and start-up costs half as much; a diagnosis
/// reads only the rules its incidents' kinds may need (units cut by the build).
struct RuleData {
  RuleData();
  ~RuleData();
  std::vector<Signature> signatures;           // highest priority first, then highest match, then load order
  std::vector<std::string> literals;           // union of all signatures' literals
  std::shared_ptr<const Prefilter> prefilter;  // built from literals after every load

  const std::vector<CauseRule>& causes() const {
    LoadDeferred();
    return causes_;
  }
  /// cause -> what it means and what changes it
  const std::map<std::string, std::string>& meanings() const {
    LoadDeferred();
    return meanings_;
  }
  /// For loaders: the deferred files are read first, so a later file's rule
  /// replaces a built-in one of the same id as it did when all loaded at once.
  std::vector<CauseRule>* mutable_causes() {
    LoadDeferred();
    return &causes_;
  }
  std::map<std::string, std::string>* mutable_meanings() {
    LoadDeferred();
    return &meanings_;
  }
  /// A unit of a built-in cause file (EmbeddedCauseUnit: one rule, or the file's
  /// meanings; texts with static storage): the file it is from, its text and the
  /// kinds it names.
  struct DeferredUnit {
    std::string_view file, text, kinds;
  };
  /// Built-in cause units to read when first needed.
  void Defer(const std::vector<DeferredUnit>& units);
  /// The cause rules that may apply to incidents of kind, in load order: of the
  /// deferred units, only those are read (a diagnosis of one kind reads about a
  /// fifth of the rules). Each rule's own kinds are still to be tested
  /// (RuleAppliesTo).
  std::vector<const CauseRule*> CausesMayApplyTo(const std::string& kind) const;
  /// Problems the deferred units had (none in a build whose tests passed).
  const std::vector<Problem>& deferred_problems() const {
    LoadDeferred();
    return deferred_problems_;
  }

 private:
  void LoadDeferred() const;  // every deferred unit, merged into causes_: once, from any thread
  struct DeferredLoad;        // one deferred unit, read once on its own

  std::vector<std::unique_ptr<DeferredLoad>> deferred_;
  mutable std::once_flag deferred_loaded_;
  mutable std::atomic<bool> merged_{false};  // causes_ holds every rule: the deferred units read
  mutable std::vector<CauseRule> causes_;
  mutable std::map<std::string, std::string> meanings_;
  mutable std::vector<Problem> deferred_problems_;
};

/// The compiled rules a RuleSet holds: for the core's stages, not the public API.
const RuleData& RuleDataOf(const RuleSet& rules);

/// Every built-in rule file read again whole, with samples and line:column, for
/// the checker: the built-in rules load without them (Signature::brief).
std::unique_ptr<RuleData> BuiltinRulesWhole();

}  // namespace oomlens

#endif  // OOMLENS_CORE_RULES_RULE_DATA_H_
