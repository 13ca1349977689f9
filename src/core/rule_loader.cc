// Loads rule documents (rules/*.json) into RuleData, reporting every problem
// with file:line:col, what is wrong and how to fix it.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include <re2/re2.h>

#include "core/embedded_rules.h"
#include "core/json_locator.h"
#include "core/rule_data.h"
#include "core/signature_patterns.h"
#include "oomlens/rules.h"

namespace oomlens {
namespace {

using json = nlohmann::json;

const std::set<std::string> kTopKeys = {"$schema", "version", "description", "signatures", "causes"};
const std::set<std::string> kSignatureKeys = {
    "id", "kind", "code", "title", "description", "priority", "literals", "start",
    "complete", "follow", "facts", "require", "max_wrap", "max_lines", "samples", "items", "annotates", "aggregates", "reject", "kind_when"};
const std::set<std::string> kAggregateKeys = {"pattern", "sum", "max", "count"};
const std::set<std::string> kKindWhenKeys = {"pattern", "kind"};
const std::set<std::string> kItemKeys = {"start", "each", "fields", "max_items"};
const std::set<std::string> kCauseKeys = {"id", "cause", "kinds", "when", "confidence", "fallback",
                                          "summary", "evidence", "advice", "docs", "samples",
                                          "description"};
const std::set<std::string> kLineKeys = {"when", "text"};

std::string JoinKeys(const std::set<std::string>& keys) {
  std::string out;
  for (const auto& k : keys) out += (out.empty() ? "" : ", ") + k;
  return out;
}

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
  bool StringList(const json& obj, const std::string& key, const std::string& ptr,
                  std::vector<std::string>* out);
  std::shared_ptr<RE2> Regex(const json& obj, const std::string& key, const std::string& ptr,
                             bool required);
  std::shared_ptr<Expr> Expression(const std::string& src, const std::string& ptr, bool condition);
  bool Lines(const json& obj, const std::string& key, const std::string& ptr,
             std::vector<TemplateLine>* out);
  void Samples(const json& obj, const std::string& ptr, std::vector<Sample>* out);
  bool LoadSignature(const json& j, const std::string& ptr, Signature* sig);
  bool FactPatterns(const json& obj, const std::string& key, const std::string& ptr, bool fields,
                    std::vector<FactPattern>* out);
  std::shared_ptr<ItemSpec> Items(const json& obj, const std::string& ptr);
  void Aggregates(const json& obj, const std::string& ptr, std::vector<Aggregate>* out);
  void KindWhen(const json& obj, const std::string& ptr, std::vector<KindRefinement>* out);
  const FactInfo* ReadFactName(const json& obj, const std::string& key, const std::string& ptr);
  bool LoadCause(const json& j, const std::string& ptr, CauseRule* rule);

  std::string name_;
  std::string_view text_;
  JsonLocator locator_;
  std::vector<Problem>* problems_;
  bool ok_ = true;
};

bool DocLoader::CheckKeys(const json& obj, const std::set<std::string>& allowed,
                          const std::string& ptr) {
  if (!obj.is_object()) {
    Error(ptr, "expected an object", "write { ... }");
    return false;
  }
  bool ok = true;
  for (const auto& item : obj.items()) {
    if (allowed.count(item.key())) continue;
    Error(ptr + "/" + PointerEscape(item.key()), "unknown key '" + item.key() + "'",
          "allowed keys: " + JoinKeys(allowed));
    ok = false;
  }
  return ok;
}

bool DocLoader::String(const json& obj, const std::string& key, const std::string& ptr,
                       bool required, std::string* out) {
  auto it = obj.find(key);
  if (it == obj.end()) {
    if (required) Error(ptr, "missing required key '" + key + "'", "add \"" + key + "\": \"...\"");
    return !required;
  }
  if (!it->is_string()) {
    Error(ptr + "/" + key, "'" + key + "' must be a string", "quote the value");
    return false;
  }
  *out = it->get<std::string>();
  return true;
}

bool DocLoader::StringList(const json& obj, const std::string& key, const std::string& ptr,
                           std::vector<std::string>* out) {
  auto it = obj.find(key);
  if (it == obj.end()) return true;
  bool ok = it->is_array();
  for (size_t i = 0; ok && i < it->size(); ++i) ok = (*it)[i].is_string();
  if (!ok) {
    Error(ptr + "/" + key, "'" + key + "' must be a list of strings", "write [\"a\", \"b\"]");
    return false;
  }
  *out = it->get<std::vector<std::string>>();
  return true;
}

std::shared_ptr<RE2> DocLoader::Regex(const json& obj, const std::string& key,
                                      const std::string& ptr, bool required) {
  std::string src;
  if (!String(obj, key, ptr, required, &src) || src.empty()) return nullptr;
  std::string error;
  auto re = CompilePattern(src, &error);
  if (!re) Error(ptr + "/" + key, "invalid regex: " + error, PatternHelp());
  return re;
}

std::shared_ptr<Expr> DocLoader::Expression(const std::string& src, const std::string& ptr,
                                            bool condition) {
  std::string error;
  size_t offset = 0;
  std::shared_ptr<Expr> expr = Expr::Parse(src, &error, &offset);
  if (!expr) {
    Error(ptr, "bad expression at column " + std::to_string(offset + 1) + " of '" + src + "': " + error,
          "see docs/rules.md, 'Expressions'");
    return nullptr;
  }
  if (condition && expr->unit() != Unit::kBool) {
    Error(ptr, "'" + src + "' is not a condition", "compare values, e.g. requested_bytes > free_bytes");
    return nullptr;
  }
  return expr;
}

bool DocLoader::Lines(const json& obj, const std::string& key, const std::string& ptr,
                      std::vector<TemplateLine>* out) {
  auto it = obj.find(key);
  if (it == obj.end()) return true;
  json items = it->is_array() ? *it : json::array({*it});
  for (size_t i = 0; i < items.size(); ++i) {
    std::string p = ptr + "/" + key + (it->is_array() ? "/" + std::to_string(i) : "");
    const json& item = items[i];
    TemplateLine line;
    std::string text;
    if (item.is_string()) {
      text = item.get<std::string>();
    } else if (item.is_object() && CheckKeys(item, kLineKeys, p)) {
      std::string when;
      if (!String(item, "text", p, true, &text) || !String(item, "when", p, false, &when)) continue;
      if (!when.empty() && !(line.when = Expression(when, p + "/when", true))) continue;
      p += "/text";
    } else {
      if (!item.is_object()) Error(p, "expected a string or {\"when\", \"text\"}", "see docs/rules.md");
      continue;
    }
    std::string error;
    size_t offset = 0;
    line.text = Template::Parse(text, &error, &offset);
    if (!line.text) {
      Error(p, "bad template at column " + std::to_string(offset + 1) + ": " + error,
            "parts are {expression} or {expression:format}");
      continue;
    }
    out->push_back(std::move(line));
  }
  return true;
}

void DocLoader::Samples(const json& obj, const std::string& ptr, std::vector<Sample>* out) {
  auto it = obj.find("samples");
  if (it == obj.end()) return;
  if (!it->is_array()) {
    Error(ptr + "/samples", "'samples' must be a list", "write [{...}, ...]");
    return;
  }
  for (size_t i = 0; i < it->size(); ++i) {
    std::string p = ptr + "/samples/" + std::to_string(i);
    out->push_back(Sample{(*it)[i], name_ + ":" + locator_.Where(p)});
  }
}

bool DocLoader::LoadSignature(const json& j, const std::string& ptr, Signature* sig) {
  if (!CheckKeys(j, kSignatureKeys, ptr)) return false;
  size_t before = problems_->size();
  sig->file = name_;
  sig->where = name_ + ":" + locator_.Where(ptr);
  String(j, "id", ptr, true, &sig->id);
  String(j, "kind", ptr, true, &sig->kind);
  String(j, "code", ptr, false, &sig->code);
  String(j, "title", ptr, false, &sig->title);
  StringList(j, "literals", ptr, &sig->literals);
  StringList(j, "require", ptr, &sig->require);
  StringList(j, "annotates", ptr, &sig->annotates);
  if (sig->literals.empty()) {
    Error(ptr, "missing 'literals'",
          "list strings of which every start line holds at least one (the fast prefilter)");
  }
  for (const char* key : {"priority", "max_wrap", "max_lines"}) {
    auto it = j.find(key);
    if (it == j.end()) continue;
    int64_t cap = std::string(key) == "max_lines" ? 1000000 : 1000;
    if (!it->is_number_integer() || it->get<int64_t>() < 0 || it->get<int64_t>() > cap) {
      Error(ptr + "/" + key, std::string("'") + key + "' must be a whole number from 0 to " + std::to_string(cap),
            "e.g. 4");
      continue;
    }
    int value = it->get<int>();
    if (std::string(key) == "priority") sig->priority = value;
    if (std::string(key) == "max_wrap") sig->max_wrap = value;
    if (std::string(key) == "max_lines") sig->max_lines = std::max(1, value);
  }
  if (auto it = j.find("max_lines"); it != j.end() && it->is_number_integer() && it->get<int64_t>() > 1000) {
    sig->max_lines = static_cast<int>(std::min<int64_t>(it->get<int64_t>(), 1000000));  // long dumps
  }
  sig->start = Regex(j, "start", ptr, true);
  sig->complete = Regex(j, "complete", ptr, false);
  sig->follow = Regex(j, "follow", ptr, false);
  FactPatterns(j, "facts", ptr, false, &sig->facts);
  sig->items = Items(j, ptr);
  Aggregates(j, ptr, &sig->aggregates);
  KindWhen(j, ptr, &sig->kind_when);
  sig->reject = Regex(j, "reject", ptr, false);
  for (const auto& name : sig->require) {
    bool captured = false;
    for (const auto& f : sig->facts)
      for (const auto& g : f.groups) captured = captured || g.info->name == name;
    if (!captured) Error(ptr + "/require", "required fact '" + name + "' is captured by no pattern",
                         "add a pattern with (?P<" + name + ">...) to 'facts'");
  }
  Samples(j, ptr, &sig->samples);
  return problems_->size() == before;
}

// Compiles a list of patterns whose named groups are facts (or, with fields,
// allocation fields). A group "<name>__decimal" reads SI sizes.
bool DocLoader::FactPatterns(const json& obj, const std::string& key, const std::string& ptr,
                             bool fields, std::vector<FactPattern>* out) {
  std::vector<std::string> sources;
  if (!StringList(obj, key, ptr, &sources)) return false;
  const std::string what = fields ? "an allocation field" : "a fact oomlens reads";
  const std::string help = fields ? "name groups after allocation fields (size_bytes, shape, operator, ...)"
                                  : "name groups after facts listed by 'oomlens rules facts'";
  for (size_t i = 0; i < sources.size(); ++i) {
    std::string p = ptr + "/" + key + "/" + std::to_string(i);
    std::string error;
    FactPattern pattern;
    pattern.re = CompilePattern(sources[i], &error);
    if (!pattern.re) {
      Error(p, "invalid regex: " + error, PatternHelp());
      continue;
    }
    for (const auto& [group, index] : pattern.re->NamedCapturingGroups()) {
      std::string name = group;
      bool decimal = false;
      const std::string kDecimal = "__decimal";
      if (name.size() > kDecimal.size() && name.compare(name.size() - kDecimal.size(), kDecimal.size(), kDecimal) == 0) {
        name.resize(name.size() - kDecimal.size());
        decimal = true;
      }
      const FactInfo* info = fields ? FindAllocationField(name) : FindFact(name);
      if (!info || info->derived) {
        Error(p, "group '" + group + "' is not " + what, help);
        continue;
      }
      pattern.groups.push_back(FactGroup{index, info, decimal});
    }
    if (pattern.groups.empty() && !fields) Error(p, "pattern captures no fact", "add (?P<fact_name>...)");
    out->push_back(std::move(pattern));
  }
  return true;
}

const FactInfo* DocLoader::ReadFactName(const json& obj, const std::string& key, const std::string& ptr) {
  std::string name;
  if (!String(obj, key, ptr, false, &name) || name.empty()) return nullptr;
  const FactInfo* info = FindFact(name);
  if (!info || info->derived || !(info->type == FactType::kSize || info->type == FactType::kCount)) {
    Error(ptr + "/" + key, "'" + name + "' is not a size or count fact oomlens reads",
          "name a fact listed by 'oomlens rules facts'");
    return nullptr;
  }
  return info;
}

void DocLoader::Aggregates(const json& obj, const std::string& ptr, std::vector<Aggregate>* out) {
  auto it = obj.find("aggregates");
  if (it == obj.end()) return;
  if (!it->is_array()) {
    Error(ptr + "/aggregates", "'aggregates' must be a list", "write [{\"pattern\": ..., \"max\": ...}]");
    return;
  }
  for (size_t i = 0; i < it->size(); ++i) {
    std::string p = ptr + "/aggregates/" + std::to_string(i);
    const json& a = (*it)[i];
    if (!CheckKeys(a, kAggregateKeys, p)) continue;
    Aggregate agg;
    agg.re = Regex(a, "pattern", p, true);
    agg.sum = ReadFactName(a, "sum", p);
    agg.max = ReadFactName(a, "max", p);
    agg.count = ReadFactName(a, "count", p);
    if (agg.re && agg.re->NumberOfCapturingGroups() != 1) {
      Error(p + "/pattern", "an aggregate pattern needs exactly one capturing group", "e.g. \"of size (\\d+)\"");
      continue;
    }
    if (agg.re) out->push_back(std::move(agg));
  }
}

void DocLoader::KindWhen(const json& obj, const std::string& ptr, std::vector<KindRefinement>* out) {
  auto it = obj.find("kind_when");
  if (it == obj.end()) return;
  for (size_t i = 0; it->is_array() && i < it->size(); ++i) {
    std::string p = ptr + "/kind_when/" + std::to_string(i);
    const json& k = (*it)[i];
    if (!CheckKeys(k, kKindWhenKeys, p)) continue;
    KindRefinement r;
    r.re = Regex(k, "pattern", p, true);
    if (String(k, "kind", p, true, &r.kind) && r.re) out->push_back(std::move(r));
  }
}

std::shared_ptr<ItemSpec> DocLoader::Items(const json& obj, const std::string& ptr) {
  auto it = obj.find("items");
  if (it == obj.end()) return nullptr;
  std::string p = ptr + "/items";
  if (!CheckKeys(*it, kItemKeys, p)) return nullptr;
  auto items = std::make_shared<ItemSpec>();
  if (it->contains("each")) {  // every match in the message's text is one entry
    items->each = true;
    items->start = Regex(*it, "each", p, true);
  } else {
    items->start = Regex(*it, "start", p, true);
  }
  if (items->start) {  // the start line's own groups are fields of the new entry
    FactPattern self;
    self.re = items->start;
    for (const auto& [group, index] : items->start->NamedCapturingGroups()) {
      const FactInfo* info = FindAllocationField(group);
      if (!info) {
        Error(p + "/start", "group '" + group + "' is not an allocation field",
              "name groups after allocation fields (size_bytes, shape, operator ...)");
        continue;
      }
      self.groups.push_back(FactGroup{index, info, false});
    }
    if (!self.groups.empty()) items->fields.push_back(std::move(self));
  }
  FactPatterns(*it, "fields", p, true, &items->fields);
  auto max = it->find("max_items");
  if (max != it->end() && max->is_number_integer() && max->get<int64_t>() > 0)
    items->max_items = static_cast<int>(std::min<int64_t>(max->get<int64_t>(), 100000));
  return items;
}

bool DocLoader::LoadCause(const json& j, const std::string& ptr, CauseRule* rule) {
  if (!CheckKeys(j, kCauseKeys, ptr)) return false;
  size_t before = problems_->size();
  rule->file = name_;
  rule->where = name_ + ":" + locator_.Where(ptr);
  String(j, "id", ptr, true, &rule->id);
  String(j, "cause", ptr, true, &rule->cause);
  StringList(j, "kinds", ptr, &rule->kinds);
  StringList(j, "docs", ptr, &rule->docs);
  auto fb = j.find("fallback");
  if (fb != j.end()) {
    if (fb->is_boolean()) rule->fallback = fb->get<bool>();
    else Error(ptr + "/fallback", "'fallback' must be true or false", "write true");
  }
  std::string when;
  if (String(j, "when", ptr, !rule->fallback, &when) && !when.empty()) {
    rule->when = Expression(when, ptr + "/when", true);
  }
  auto conf = j.find("confidence");
  if (conf == j.end() || !conf->is_number() || conf->get<double>() < 0 || conf->get<double>() > 1) {
    Error(conf == j.end() ? ptr : ptr + "/confidence", "'confidence' must be a number from 0 to 1",
          "e.g. \"confidence\": 0.8");
  } else {
    rule->confidence = conf->get<double>();
  }
  Lines(j, "summary", ptr, &rule->summary);
  Lines(j, "evidence", ptr, &rule->evidence);
  Lines(j, "advice", ptr, &rule->advice);
  if (!j.contains("summary")) Error(ptr, "missing 'summary'", "add \"summary\": \"...\"");
  Samples(j, ptr, &rule->samples);
  return problems_->size() == before;
}

template <typename T>
void Upsert(std::vector<T>* list, T item) {
  for (auto& existing : *list) {
    if (existing.id == item.id) {
      existing = std::move(item);
      return;
    }
  }
  list->push_back(std::move(item));
}

bool DocLoader::Load(RuleData* data) {
  json doc;
  try {
    doc = json::parse(text_.begin(), text_.end());
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    size_t colon = what.find("syntax error");
    problems_->push_back(Problem{Problem::Severity::kError,
                                 name_ + ":" + locator_.WhereOffset(e.byte > 0 ? e.byte - 1 : 0),
                                 "invalid JSON: " + (colon == std::string::npos ? what : what.substr(colon)),
                                 "fix the JSON syntax (a missing comma or quote?)"});
    return false;
  }
  if (!CheckKeys(doc, kTopKeys, "")) return false;
  auto version = doc.find("version");
  if (version == doc.end() || *version != 1) {
    Error(version == doc.end() ? "" : "/version", "'version' must be 1",
          "add \"version\": 1 (the only rule format version this oomlens reads)");
    return false;
  }
  for (const char* section : {"signatures", "causes"}) {
    auto it = doc.find(section);
    if (it == doc.end()) continue;
    if (!it->is_array()) {
      Error(std::string("/") + section, std::string("'") + section + "' must be a list", "write [...]");
      continue;
    }
    for (size_t i = 0; i < it->size(); ++i) {
      std::string ptr = std::string("/") + section + "/" + std::to_string(i);
      if (std::string(section) == "signatures") {
        Signature sig;
        if (LoadSignature((*it)[i], ptr, &sig)) Upsert(&data->signatures, std::move(sig));
      } else {
        CauseRule rule;
        if (LoadCause((*it)[i], ptr, &rule)) Upsert(&data->causes, std::move(rule));
      }
    }
  }
  return ok_;
}

void Reindex(RuleData* data) {
  std::stable_sort(data->signatures.begin(), data->signatures.end(),
                   [](const Signature& a, const Signature& b) { return a.priority > b.priority; });
  std::set<std::string> literals;
  for (const auto& s : data->signatures) literals.insert(s.literals.begin(), s.literals.end());
  data->literals.assign(literals.begin(), literals.end());
}

}  // namespace

RuleSet::RuleSet() : data_(std::make_unique<RuleData>()) {}
RuleSet::~RuleSet() = default;

bool RuleSet::LoadText(const std::string& name, std::string_view text, std::vector<Problem>* problems) {
  bool ok = DocLoader(name, text, problems).Load(data_.get());
  Reindex(data_.get());
  return ok;
}

bool RuleSet::LoadBuiltin(std::vector<Problem>* problems) {
  bool ok = true;
  for (const auto& file : EmbeddedRuleFiles()) ok = LoadText(std::string(file.name), file.text, problems) && ok;
  return ok;
}

bool RuleSet::LoadDirectory(const std::string& dir, std::vector<Problem>* problems) {
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    problems->push_back(Problem{Problem::Severity::kError, dir, "not a readable directory",
                                "give --rules a folder that holds rule *.json files"});
    return false;
  }
  std::vector<std::string> files;
  std::vector<std::string> pending = {dir};
  while (!pending.empty()) {
    std::string current = pending.back();
    pending.pop_back();
    DIR* d = ::opendir(current.c_str());
    if (!d) continue;
    while (dirent* e = ::readdir(d)) {
      std::string n = e->d_name;
      if (n == "." || n == "..") continue;
      std::string path = current + "/" + n;
      if (::stat(path.c_str(), &st) != 0) continue;
      if (S_ISDIR(st.st_mode)) pending.push_back(path);
      else if (n.size() > 5 && n.compare(n.size() - 5, 5, ".json") == 0) files.push_back(path);
    }
    ::closedir(d);
  }
  std::sort(files.begin(), files.end());
  bool ok = true;
  for (const auto& path : files) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    if (!in) {
      problems->push_back(Problem{Problem::Severity::kError, path, "cannot read the file",
                                  "check its permissions"});
      ok = false;
      continue;
    }
    ok = LoadText(path, buffer.str(), problems) && ok;
  }
  return ok;
}

std::vector<RuleEntry> RuleSet::List() const {
  std::vector<RuleEntry> out;
  for (const auto& s : data_->signatures) out.push_back({"signature", s.id, s.kind, s.file});
  for (const auto& c : data_->causes) out.push_back({"cause", c.id, c.cause, c.file});
  return out;
}

}  // namespace oomlens
