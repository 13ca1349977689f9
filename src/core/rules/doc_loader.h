// The loader of one rule document (internal to rule_loader.cc and
// signature_loader.cc): strict keys, typed values, every problem reported with
// file:line:col, what is wrong and what to do.
#ifndef OOMLENS_CORE_RULES_DOC_LOADER_H_
#define OOMLENS_CORE_RULES_DOC_LOADER_H_

#include <nlohmann/json.hpp>
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
  DocLoader(std::string name, std::string_view text, std::vector<Problem>* problems)
      : name_(std::move(name)), text_(text), locator_(text), problems_(problems) {}

  bool Load(RuleData* data);

 private:
  void Error(const std::string& pointer, const std::string& message, const std::string& help) {
    problems_->push_back(Problem{Problem::Severity::kError, name_ + ":" + locator_.Where(pointer),
                                 pointer + ": " + message, help});
    ok_ = false;
  }
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
  std::shared_ptr<RE2> Regex(const json& obj, const std::string& key, const std::string& ptr, bool required);
  std::shared_ptr<Expr> Expression(const std::string& src, const std::string& ptr, bool condition);
  bool AdviceParts(const json& item, const std::string& ptr, TemplateLine* line);
  bool Lines(const json& obj, const std::string& key, const std::string& ptr, std::vector<TemplateLine>* out);
  void Samples(const json& obj, const std::string& ptr, std::vector<Sample>* out);
  bool LoadSignature(const json& j, const std::string& ptr, Signature* sig);
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
  JsonLocator locator_;
  std::vector<Problem>* problems_;
  bool ok_ = true;
};

/// "a, b, c" for error messages.
std::string JoinKeys(const std::set<std::string>& keys);

}  // namespace oomlens

#endif  // OOMLENS_CORE_RULES_DOC_LOADER_H_
