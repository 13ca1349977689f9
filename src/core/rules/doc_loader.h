// The loader of one rule document (internal to rule_loader.cc and
// signature_loader.cc): strict keys, typed values, every problem reported with
// file:line:col, what is wrong and what to do.
#ifndef OOMLENS_CORE_RULES_DOC_LOADER_H_
#define OOMLENS_CORE_RULES_DOC_LOADER_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/rules/json_locator.h"
#include "core/rules/rule_data.h"
#include "oomlens/report.h"

namespace oomlens {

using json = nlohmann::json;

// Loads one document, collecting problems.
class DocLoader {
 public:
  /// compile_now: every pattern compiled (and refused with file:line) and every
  /// repeated key found as the document is read; false for the built-in rules,
  /// which the build's tests load whole: patterns compile on first use, the
  /// locator is shallow.
  /// brief: true for the built-in rules too: samples, which only the checker
  /// runs, are neither built nor kept, and no line:column is looked for unless a
  /// problem needs one (Signature::brief: the checker reads them again whole, see
  /// BuiltinRulesWhole); a quarter of start-up.
  DocLoader(std::string name, std::string_view text, std::vector<Problem>* problems, bool compile_now = true,
            bool brief = false)
      : name_(std::move(name)), text_(text), problems_(problems), compile_now_(compile_now), brief_(brief) {}

  bool Load(RuleData* data);

 private:
  /// The document: a brief one without its samples. Throws as json::parse does,
  /// at the place in the file as written.
  json Parse() const;
  void Error(const std::string& pointer, const std::string& message, const std::string& help) {
    std::string source = SourcePointer(pointer);
    problems_->push_back(Problem{Problem::Severity::kError, name_ + ":" + Locator().Where(source),
                                 source + ": " + message, help});
    ok_ = false;
  }
  /// "file:line:column" of a JSON pointer of the document as loaded.
  std::string Where(const std::string& pointer) const {
    return name_ + ":" + Locator().Where(SourcePointer(pointer));
  }
  /// Made when first asked: a brief load asks only when a problem needs a place.
  JsonLocator& Locator() const {
    if (!locator_) locator_.emplace(text_, /*shallow=*/!compile_now_);
    return *locator_;
  }
  /// Where an element of a list is written: an element a shared list brought into a
  /// signature is written in "shared" (see ExpandShared).
  std::string SourcePointer(const std::string& pointer) const;
  /// Reads the file's "shared" lists; false (with an error) if it is malformed.
  bool LoadShared(const json& doc);
  /// Reads the file's "meanings" (cause -> two sentences) into data.
  void LoadMeanings(const json& doc, RuleData* data);
  /// Rewrites signature j so that each "@name" element of a list stands for the
  /// elements of the shared list name (or the one shared string), and a string field
  /// "@name" for the shared string. Lists without a reference are left as they are.
  void ExpandShared(json* j, const std::string& ptr);
  json ExpandList(const json& list, const std::string& at);
  /// The shared entry "@name" names, or nullptr (with an error at ptr).
  const json* SharedEntry(const json& reference, const std::string& ptr);
  /// An error for each shared list no signature used (a misspelt reference?).
  void CheckSharedUsed();
  bool CheckKeys(const json& obj, const std::set<std::string>& allowed, const std::string& ptr);
  bool String(const json& obj, const std::string& key, const std::string& ptr, bool required,
              std::string* out);
  /// An optional true/false; help says what true means.
  bool Bool(const json& obj, const std::string& key, const std::string& ptr, const std::string& help,
            bool* out);
  /// An optional whole number from lo to hi.
  bool Int(const json& obj, const std::string& key, const std::string& ptr, int lo, int hi, int* out);
  bool StringList(const json& obj, const std::string& key, const std::string& ptr,
                  std::vector<std::string>* out);
  LazyRegex Regex(const json& obj, const std::string& key, const std::string& ptr, bool required);
  std::shared_ptr<Expr> Expression(const std::string& src, const std::string& ptr, bool condition);
  bool AdviceParts(const json& item, const std::string& ptr, TemplateLine* line);
  bool Lines(const json& obj, const std::string& key, const std::string& ptr, std::vector<TemplateLine>* out);
  void Samples(const json& obj, const std::string& ptr, std::vector<Sample>* out);
  bool LoadSignature(const json& j, const std::string& ptr, Signature* sig);
  void LoadPhase(const json& j, const std::string& ptr, Signature* sig);
  void CheckPhases(const std::vector<std::string>& phases, const std::string& ptr);
  bool FactPatterns(const json& obj, const std::string& key, const std::string& ptr, bool fields,
                    std::vector<FactPattern>* out);
  /// The array at obj[key], or nullptr (absent, or not an array: an error).
  const json* List(const json& obj, const std::string& key, const std::string& ptr);
  std::shared_ptr<ItemSpec> Items(const json& obj, const std::string& ptr);
  void Aggregates(const json& obj, const std::string& ptr, std::vector<Aggregate>* out);
  void KindWhen(const json& obj, const std::string& ptr, std::vector<KindRefinement>* out);
  void Values(const json& obj, const std::string& ptr, std::vector<FactPattern>* facts);
  const FactInfo* ReadFactName(const json& obj, const std::string& key, const std::string& ptr);
  bool LoadCause(const json& j, const std::string& ptr, CauseRule* rule);

  std::string name_;
  std::string_view text_;
  mutable std::optional<JsonLocator>
      locator_;  // a shallow one completes itself when asked for a deep pointer
  std::vector<Problem>* problems_;
  bool compile_now_;
  bool brief_;
  const json* shared_ = nullptr;                              // the file's "shared" lists
  std::set<std::string> shared_used_;                         // the names signatures used
  std::vector<std::pair<std::string, std::string>> aliases_;  // expanded pointer -> where written
  bool ok_ = true;
};

/// "a, b, c" for error messages.
std::string JoinKeys(const std::set<std::string>& keys);

}  // namespace oomlens

#endif  // OOMLENS_CORE_RULES_DOC_LOADER_H_
