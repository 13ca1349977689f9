// The rule set: message signatures (how OOMs are recognised) and cause rules
// (what they mean), both data in rules/*.json.
//
//   oomlens::RuleSet rules;
//   std::vector<oomlens::Problem> problems;
//   if (!rules.LoadBuiltin(&problems) || !rules.LoadDirectory("my_rules", &problems)) ...
//
// Later files override earlier entries with the same id. Every problem says
// file:line:col, what is wrong and how to fix it; loading reports all of them.
#ifndef OOMLENS_RULES_H_
#define OOMLENS_RULES_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "oomlens/report.h"

namespace oomlens {

struct RuleData;

/// One entry of `oomlens rules list`.
struct RuleEntry {
  enum class Type { kSignature, kCause };
  Type type = Type::kSignature;
  std::string id;
  std::string what;  ///< the kind (signatures) or cause id (cause rules)
  std::string file;
};

/// "signature" or "cause", as `oomlens rules list` prints a rule's type.
const char* RuleTypeName(RuleEntry::Type type);

class RuleSet {
 public:
  RuleSet();
  ~RuleSet();
  RuleSet(const RuleSet&) = delete;
  RuleSet& operator=(const RuleSet&) = delete;

  /// Loads the rules compiled into the binary. Returns false on problems.
  bool LoadBuiltin(std::vector<Problem>* problems);
  /// Loads every *.json file under dir, in name order. Returns false on problems
  /// (valid entries are still loaded).
  bool LoadDirectory(const std::string& dir, std::vector<Problem>* problems);
  /// Loads one rule document; name is used in messages.
  bool LoadText(const std::string& name, std::string_view text, std::vector<Problem>* problems);

  /// Compiles every pattern (the built-in rules' are compiled on first use) and runs
  /// every signature's and rule's samples. Returns true when all pass.
  bool CheckSamples(std::vector<Problem>* problems) const;

  std::vector<RuleEntry> List() const;
  /// The causes the cause rules can conclude, sorted ("fragmentation", ...).
  std::vector<std::string> Causes() const;
  /// The kinds of incident the signatures can recognise, sorted ("pytorch_cuda", ...);
  /// series, activity and annotating signatures make no incident and are left out.
  std::vector<std::string> IncidentKinds() const;
  /// The error codes the signatures name, sorted ("E0100", "E0101", ...).
  std::vector<std::string> Codes() const;
  /// The literals of the prefilter (a line without one cannot start a message).
  std::vector<std::string> Literals() const;

 private:
  friend const RuleData& RuleDataOf(const RuleSet& rules);
  std::unique_ptr<RuleData> data_;
};

/// A fingerprint of the rules compiled into the binary (8 hex digits): two
/// binaries with the same value read logs with the same rules.
std::string BuiltinRulesVersion();

/// How many signatures and cause rules are compiled into the binary, counted
/// from their files by the build (what --version says, loading nothing).
struct RuleCounts {
  size_t signatures = 0, causes = 0;
};
RuleCounts BuiltinRuleCounts();

/// The causes, incident kinds and error codes the built-in rules name (what
/// RuleSet's Causes, IncidentKinds and Codes give once they are loaded), read from
/// their files by the build: shell completions load nothing.
struct RuleNames {
  std::vector<std::string> causes, kinds, codes;
};
RuleNames BuiltinRuleNames();

}  // namespace oomlens

#endif  // OOMLENS_RULES_H_
