// Loads rule documents (rules/*.json) into RuleData, reporting every problem
// with file:line:col, what is wrong and how to fix it.
#include <dirent.h>
#include <re2/re2.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>
#include <utility>

#include "core/model/hash.h"
#include "core/model/json_depth.h"
#include "core/rules/doc_loader.h"
#include "core/rules/embedded_rules.h"
#include "core/rules/json_strip.h"
#include "core/rules/signature_patterns.h"
#include "oomlens/report.h"
#include "oomlens/rules.h"

namespace oomlens {
namespace {

constexpr off_t kMaxRuleFileBytes = 16 << 20;  // the built-in rules are under 100 KiB each

const std::set<std::string> kTopKeys = {"$schema",    "version", "description", "shared",
                                        "signatures", "causes",  "meanings"};
const std::set<std::string> kCauseKeys = {"id",       "cause",   "kinds",       "when",   "confidence",
                                          "fallback", "summary", "evidence",    "advice", "fit",
                                          "docs",     "samples", "description", "note",   "formula"};
const std::set<std::string> kLineKeys = {"when", "text"};
const std::set<std::string> kAdviceKeys = {"when", "text", "rank", "basis", "why_not"};
const std::vector<std::pair<std::string, size_t>> kNoDuplicates;

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

void Reindex(RuleData* data) {
  // Highest priority first; at equal priority a family's own wording (match 1) before
  // a structural guess (the general reader), so a guess never takes a family's line.
  // The order sorted by index, then each signature moved once (none when the files
  // are in order): a Signature is large, and a stable sort moves it at every level.
  std::vector<size_t> order(data->signatures.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [data](size_t x, size_t y) {
    const Signature& a = data->signatures[x];
    const Signature& b = data->signatures[y];
    return a.priority != b.priority ? a.priority > b.priority : a.match > b.match;
  });
  if (!std::is_sorted(order.begin(), order.end())) {
    std::vector<Signature> sorted;
    sorted.reserve(order.size());
    for (size_t i : order) sorted.push_back(std::move(data->signatures[i]));
    data->signatures.swap(sorted);
  }
  std::set<std::string> literals;
  for (const auto& s : data->signatures) literals.insert(s.literals.begin(), s.literals.end());
  data->literals.assign(literals.begin(), literals.end());
  data->prefilter = std::make_shared<const Prefilter>(data->literals);
  for (auto& s : data->signatures) {  // where each signature's literals are in data->literals
    s.literal_indices.clear();
    for (const auto& l : s.literals) {
      auto it = std::lower_bound(data->literals.begin(), data->literals.end(), l);
      s.literal_indices.push_back(static_cast<int>(it - data->literals.begin()));
    }
  }
}

// The expression as quoted in a message: whole when short, else the 60
// characters before the place it went wrong.
std::string Quoted(const std::string& src, size_t offset) {
  constexpr size_t kShown = 60;
  if (src.size() <= 2 * kShown) return "'" + src + "'";
  size_t from = offset > kShown ? offset - kShown : 0;
  return "'..." + src.substr(from, std::min(offset, src.size()) - from + 1) + "...' (" +
         std::to_string(src.size()) + " characters)";
}

// A built-in file of cause rules and meanings only: read when first needed
// (a test checks that no other built-in file holds either).
bool Deferrable(std::string_view name) { return name.rfind("rules/causes/", 0) == 0; }

}  // namespace

std::string JoinKeys(const std::set<std::string>& keys) {
  std::string out;
  for (const auto& k : keys) out += (out.empty() ? "" : ", ") + k;
  return out;
}

const json* DocLoader::List(const json& obj, const std::string& key, const std::string& ptr) {
  auto it = obj.find(key);
  if (it == obj.end()) return nullptr;
  if (!it->is_array()) {
    Error(ptr + "/" + key, "'" + key + "' must be a list", "write [ ... ]");
    return nullptr;
  }
  return &*it;
}

bool DocLoader::CheckKeys(const json& obj, const std::set<std::string>& allowed, const std::string& ptr) {
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

bool DocLoader::String(const json& obj, const std::string& key, const std::string& ptr, bool required,
                       std::string* out) {
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

bool DocLoader::Bool(const json& obj, const std::string& key, const std::string& ptr, const std::string& help,
                     bool* out) {
  auto it = obj.find(key);
  if (it == obj.end()) return true;
  if (!it->is_boolean()) {
    Error(ptr + "/" + key, "'" + key + "' must be true or false", help);
    return false;
  }
  *out = it->get<bool>();
  return true;
}

bool DocLoader::Int(const json& obj, const std::string& key, const std::string& ptr, int lo, int hi,
                    int* out) {
  auto it = obj.find(key);
  if (it == obj.end()) return true;
  if (!it->is_number_integer() || it->get<int64_t>() < lo || it->get<int64_t>() > hi) {
    Error(ptr + "/" + key,
          "'" + key + "' must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi),
          "e.g. 4");
    return false;
  }
  *out = it->get<int>();
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

LazyRegex DocLoader::Regex(const json& obj, const std::string& key, const std::string& ptr, bool required) {
  std::string src;
  if (!String(obj, key, ptr, required, &src) || src.empty()) return LazyRegex();
  std::string error;
  LazyRegex re = CompilePattern(src, &error, compile_now_);
  if (!re) Error(ptr + "/" + key, "invalid regex: " + error, PatternHelp());
  return re;
}

std::shared_ptr<Expr> DocLoader::Expression(const std::string& src, const std::string& ptr, bool condition) {
  std::string error;
  size_t offset = 0;
  std::shared_ptr<Expr> expr = Expr::Parse(src, &error, &offset);
  if (!expr) {
    Error(ptr,
          "bad expression at column " + std::to_string(offset + 1) + " of " + Quoted(src, offset) + ": " +
              error,
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
    } else if (item.is_object() && CheckKeys(item, key == "advice" ? kAdviceKeys : kLineKeys, p)) {
      std::string when;
      if (!String(item, "text", p, true, &text) || !String(item, "when", p, false, &when)) continue;
      if (!when.empty() && !(line.when = Expression(when, p + "/when", true))) continue;
      if (!AdviceParts(item, p, &line)) continue;
      p += "/text";
    } else {
      if (!item.is_object()) Error(p, "expected a string or {\"when\", \"text\"}", "see docs/rules.md");
      continue;
    }
    std::string error;
    size_t offset = 0;
    line.source = text;
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

// An advice line's rank (a number), basis and why_not (templates), when given.
bool DocLoader::AdviceParts(const json& item, const std::string& ptr, TemplateLine* line) {
  if (!String(item, "rank", ptr, false, &line->rank_source) ||
      !String(item, "basis", ptr, false, &line->basis_source) ||
      !String(item, "why_not", ptr, false, &line->why_not_source)) {
    return false;
  }
  if (!line->rank_source.empty()) {
    line->rank = Expression(line->rank_source, ptr + "/rank", false);
    if (!line->rank) return false;
    if (line->rank->unit() != Unit::kNumber && line->rank->unit() != Unit::kAny) {  // kAny: a plain literal
      Error(ptr + "/rank", "'" + line->rank_source + "' is not a number",
            "rank with a number, e.g. 2 or "
            "requested_bytes / free_bytes; higher ranks come first");
      return false;
    }
  }
  for (auto [source, out, name] : {std::tuple{&line->basis_source, &line->basis, "basis"},
                                   std::tuple{&line->why_not_source, &line->why_not, "why_not"}}) {
    if (source->empty()) continue;
    std::string error;
    size_t offset = 0;
    *out = Template::Parse(*source, &error, &offset);
    if (!*out) {
      Error(ptr + "/" + name, "bad template at column " + std::to_string(offset + 1) + ": " + error,
            "parts are {expression} or {expression:format}");
      return false;
    }
  }
  return true;
}

// Phase names are a fixed list (the JSON report's "phase"); "unknown" names none.
void DocLoader::CheckPhases(const std::vector<std::string>& phases, const std::string& ptr) {
  std::string known;
  for (const char* name : Phase::kNames) {
    if (std::string_view(name) == "unknown") continue;
    known += known.empty() ? "" : ", ";
    known += name;
  }
  for (const auto& phase : phases) {
    bool found = false;
    for (const char* name : Phase::kNames) found = found || (phase == name && phase != "unknown");
    if (!found) Error(ptr, "unknown phase '" + phase + "'", "phases are " + known);
  }
}

void DocLoader::Samples(const json& obj, const std::string& ptr, std::vector<Sample>* out) {
  const json* it = List(obj, "samples", ptr);
  for (size_t i = 0; it && i < it->size(); ++i) {
    std::string p = ptr + "/samples/" + std::to_string(i);
    out->push_back(Sample{std::make_shared<const json>((*it)[i]), Where(p)});
  }
}

bool DocLoader::LoadCause(const json& j, const std::string& ptr, CauseRule* rule) {
  if (!CheckKeys(j, kCauseKeys, ptr)) return false;
  size_t before = problems_->size();
  rule->file = name_;
  rule->where = brief_ ? name_ : Where(ptr);  // brief: the checker finds its line again
  String(j, "id", ptr, true, &rule->id);
  String(j, "description", ptr, false, &rule->description);
  StringList(j, "kinds", ptr, &rule->kinds);
  StringList(j, "docs", ptr, &rule->docs);
  auto fb = j.find("fallback");
  if (fb != j.end()) {
    if (fb->is_boolean()) rule->fallback = fb->get<bool>();
    else Error(ptr + "/fallback", "'fallback' must be true or false", "write true");
  }
  auto note = j.find("note");
  if (note != j.end()) {
    if (note->is_boolean()) rule->note = note->get<bool>();
    else Error(ptr + "/note", "'note' must be true or false", "true: its evidence is added to any diagnosis");
  }
  String(j, "cause", ptr, !rule->note, &rule->cause);  // a note without one only adds advice
  std::string when;
  if (String(j, "when", ptr, !rule->fallback, &when) && !when.empty()) {
    rule->when = Expression(when, ptr + "/when", true);
  }
  auto conf = j.find("confidence");
  if (rule->note && conf == j.end()) {
    // a note decides nothing: no confidence needed
  } else if (conf == j.end() || !conf->is_number() || conf->get<double>() < 0 || conf->get<double>() > 1) {
    Error(conf == j.end() ? ptr : ptr + "/confidence", "'confidence' must be a number from 0 to 1",
          "e.g. \"confidence\": 0.8");
  } else {
    rule->confidence = conf->get<double>();
  }
  Lines(j, "summary", ptr, &rule->summary);
  Lines(j, "evidence", ptr, &rule->evidence);
  Lines(j, "advice", ptr, &rule->advice);
  Lines(j, "fit", ptr, &rule->fit);
  Lines(j, "formula", ptr, &rule->formula);
  if (!j.contains("summary") && !rule->note) Error(ptr, "missing 'summary'", "add \"summary\": \"...\"");
  Samples(j, ptr, &rule->samples);
  rule->brief = brief_;
  return problems_->size() == before;
}

json DocLoader::Parse() const {
  if (brief_) {  // the built-in files: their signatures' and cause rules' samples left out
    std::string without = WithoutMembers(text_, 3, "samples");
    json doc = json::parse(without.begin(), without.end(), nullptr, /*allow_exceptions=*/false);
    if (!doc.is_discarded()) return doc;  // else the whole text, for the error's place in the file
  }
  return json::parse(text_.begin(), text_.end());
}

bool DocLoader::Load(RuleData* data) {
  size_t deep = compile_now_ ? JsonTooDeepAt(text_) : std::string_view::npos;  // the built-in files: tested
  if (deep != std::string_view::npos) {
    problems_->push_back(Problem{Problem::Severity::kError, name_ + ":" + Locator().WhereOffset(deep),
                                 "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels",
                                 "a rule file nests about 6 levels: check that it is a rule file"});
    return false;
  }
  json doc;
  try {
    doc = Parse();
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    size_t colon = what.find("syntax error");
    problems_->push_back(Problem{Problem::Severity::kError,
                                 name_ + ":" + Locator().WhereOffset(e.byte > 0 ? e.byte - 1 : 0),
                                 "invalid JSON: " + (colon == std::string::npos ? what : what.substr(colon)),
                                 "fix the JSON syntax (a missing comma or quote?)"});
    return false;
  } catch (const json::exception& e) {  // e.g. out_of_range: a number too large for a double
    problems_->push_back(Problem{Problem::Severity::kError, name_, std::string("invalid JSON: ") + e.what(),
                                 "write numbers that fit a double (e.g. 1e300 at most)"});
    return false;
  }
  const auto& duplicates =
      compile_now_ ? Locator().duplicates() : kNoDuplicates;  // a shallow one looks for none
  for (const auto& [pointer, offset] : duplicates) {
    std::string key = pointer.substr(pointer.rfind('/') + 1);
    problems_->push_back(Problem{Problem::Severity::kError, name_ + ":" + Locator().WhereOffset(offset),
                                 pointer + ": the key '" + key + "' appears twice in one object",
                                 "keep one '" + key + "': a JSON reader keeps only the last, silently"});
  }
  if (!duplicates.empty()) return false;
  if (!CheckKeys(doc, kTopKeys, "")) return false;
  auto version = doc.find("version");
  if (version == doc.end() || *version != 1) {
    Error(version == doc.end() ? "" : "/version", "'version' must be 1",
          "add \"version\": 1 (the only rule format version this oomlens reads)");
    return false;
  }
  if (!LoadShared(doc)) return false;
  LoadMeanings(doc, data);
  for (const char* section : {"signatures", "causes"}) {
    json* it = List(doc, section, "") ? &doc.at(section) : nullptr;  // signatures are expanded in place
    for (size_t i = 0; it && i < it->size(); ++i) {
      std::string ptr = std::string("/") + section + "/" + std::to_string(i);
      if (std::string(section) == "signatures") {
        Signature sig;
        ExpandShared(&(*it)[i], ptr);
        if (LoadSignature((*it)[i], ptr, &sig)) Upsert(&data->signatures, std::move(sig));
      } else {
        CauseRule rule;
        if (LoadCause((*it)[i], ptr, &rule)) Upsert(data->mutable_causes(), std::move(rule));
      }
    }
  }
  CheckSharedUsed();
  return ok_;
}

void DocLoader::LoadMeanings(const json& doc, RuleData* data) {
  auto it = doc.find("meanings");
  if (it == doc.end()) return;
  bool ok = it->is_object();
  for (auto entry = it->begin(); ok && entry != it->end(); ++entry)
    ok = entry->is_string() && !entry->get<std::string>().empty();
  if (!ok) {
    return Error("/meanings", "'meanings' must be an object of causes and sentences",
                 R"(write "meanings": {"fragmentation": "What it means. What usually changes it."})");
  }
  std::map<std::string, std::string>& meanings = *data->mutable_meanings();
  for (auto entry = it->begin(); entry != it->end(); ++entry) meanings[entry.key()] = *entry;
}

RuleSet::RuleSet() : data_(std::make_unique<RuleData>()) {}
RuleSet::~RuleSet() = default;

bool RuleSet::LoadText(const std::string& name, std::string_view text, std::vector<Problem>* problems) {
  bool ok = DocLoader(name, text, problems).Load(data_.get());
  Reindex(data_.get());
  return ok;
}

bool RuleSet::LoadBuiltin(std::vector<Problem>* problems) {
  // The signature files one by one, then one index and prefilter for all. Checked
  // by the build's tests: patterns compile on first use, cause rules are read by
  // units when first needed.
  bool ok = true;
  for (const auto& file : EmbeddedRuleFiles()) {
    if (Deferrable(file.name)) continue;  // read by units (EmbeddedCauseUnits) when needed
    ok = DocLoader(std::string(file.name), file.text, problems, /*compile_now=*/false, /*brief=*/true)
             .Load(data_.get()) &&
         ok;
  }
  std::vector<RuleData::DeferredUnit> deferred;
  for (const auto& unit : EmbeddedCauseUnits()) deferred.push_back({unit.file, unit.text, unit.kinds});
  data_->Defer(deferred);
  Reindex(data_.get());
  return ok;
}

struct RuleData::DeferredLoad {
  DeferredUnit unit;
  std::once_flag once;
  RuleData rules;  // what the unit holds, once read
  std::vector<Problem> problems;

  const RuleData& Read() {
    std::call_once(once, [this] {
      DocLoader(std::string(unit.file), unit.text, &problems, /*compile_now=*/false, /*brief=*/true)
          .Load(&rules);
    });
    return rules;
  }
  // Whether the unit names kind, an exclusion of another kind, or any kind.
  bool MayHoldRuleFor(std::string_view kind) const {
    for (std::string_view rest = unit.kinds; !rest.empty();) {
      size_t comma = std::min(rest.find(','), rest.size());
      std::string_view token = rest.substr(0, comma);
      rest.remove_prefix(std::min(comma + 1, rest.size()));
      if (token == "*" || token == kind || (token[0] == '!' && token.substr(1) != kind)) return true;
    }
    return false;
  }
};

RuleData::RuleData() = default;
RuleData::~RuleData() = default;

void RuleData::Defer(const std::vector<DeferredUnit>& units) {
  deferred_.clear();
  for (const auto& unit : units) {
    deferred_.push_back(std::make_unique<DeferredLoad>());
    deferred_.back()->unit = unit;
  }
}

void RuleData::LoadDeferred() const {
  std::call_once(deferred_loaded_, [this] {
    for (const auto& load : deferred_) {  // in order: a later unit's rule of one id replaces an earlier
      const RuleData& read = load->Read();
      for (const auto& rule : read.causes_) Upsert(&causes_, rule);
      for (const auto& [cause, meaning] : read.meanings_) meanings_[cause] = meaning;
      deferred_problems_.insert(deferred_problems_.end(), load->problems.begin(), load->problems.end());
    }
    merged_ = true;
  });
}

std::vector<const CauseRule*> RuleData::CausesMayApplyTo(const std::string& kind) const {
  std::vector<const CauseRule*> rules;
  if (merged_ || deferred_.empty()) {
    for (const auto& rule : causes()) rules.push_back(&rule);
    return rules;
  }
  for (const auto& load : deferred_) {  // built-in rule ids are unique (tested): no unit replaces another's
    if (!load->MayHoldRuleFor(kind)) continue;
    for (const auto& rule : load->Read().causes_) rules.push_back(&rule);
  }
  return rules;
}

std::unique_ptr<RuleData> BuiltinRulesWhole() {
  auto rules = std::make_unique<RuleData>();
  std::vector<Problem> again;  // the same files' problems, reported when they were first loaded
  for (const auto& file : EmbeddedRuleFiles())
    DocLoader(std::string(file.name), file.text, &again, /*compile_now=*/false).Load(rules.get());
  return rules;
}

std::string BuiltinRulesVersion() {
  Fnv1a hash;  // over every file's name and text
  for (const auto& file : EmbeddedRuleFiles()) hash.Add(file.name).Add(file.text);
  return hash.Hex(8);
}

RuleCounts BuiltinRuleCounts() {
  EmbeddedCounts counts = EmbeddedRuleCounts();  // counted by the build, from the files
  return RuleCounts{counts.signatures, counts.causes};
}

RuleNames BuiltinRuleNames() {
  const EmbeddedNames& names = EmbeddedRuleNames();  // read by the build, from the files
  return RuleNames{names.causes, names.kinds, names.codes};
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
  std::set<std::pair<dev_t, ino_t>> visited;  // a symlink loop is walked once
  bool ok = true;
  while (!pending.empty()) {
    std::string current = pending.back();
    pending.pop_back();
    if (::stat(current.c_str(), &st) != 0 || !visited.insert({st.st_dev, st.st_ino}).second) continue;
    DIR* d = ::opendir(current.c_str());
    if (!d) {
      problems->push_back(Problem{Problem::Severity::kError, current, "cannot open the rules folder",
                                  "check its permissions, or leave it out of --rules"});
      ok = false;
      continue;
    }
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
  for (const auto& path : files) {
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > kMaxRuleFileBytes) {
      problems->push_back(Problem{Problem::Severity::kError, path,
                                  "not a rule file (not a regular file, or larger than 16 MiB)",
                                  "remove it from the rules folder"});
      ok = false;
      continue;
    }
    std::ifstream in(path, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    if (!in) {
      problems->push_back(
          Problem{Problem::Severity::kError, path, "cannot read the file", "check its permissions"});
      ok = false;
      continue;
    }
    ok = DocLoader(path, buffer.str(), problems).Load(data_.get()) && ok;
  }
  Reindex(data_.get());
  return ok;
}

std::vector<std::string> RuleSet::Literals() const { return data_->literals; }

const char* RuleTypeName(RuleEntry::Type type) {
  return type == RuleEntry::Type::kSignature ? "signature" : "cause";
}

const RuleData& RuleDataOf(const RuleSet& rules) { return *rules.data_; }

std::vector<RuleEntry> RuleSet::List() const {
  std::vector<RuleEntry> out;
  for (const auto& s : data_->signatures) out.push_back({RuleEntry::Type::kSignature, s.id, s.kind, s.file});
  for (const auto& c : data_->causes()) out.push_back({RuleEntry::Type::kCause, c.id, c.cause, c.file});
  return out;
}

std::vector<std::string> RuleSet::Causes() const {
  std::set<std::string> causes;
  for (const auto& c : data_->causes()) {
    if (!c.cause.empty()) causes.insert(c.cause);
  }
  return {causes.begin(), causes.end()};
}

std::vector<std::string> RuleSet::IncidentKinds() const {
  std::set<std::string> kinds;
  for (const auto& s : data_->signatures) {
    if (s.series || !s.activity.empty() || !s.annotates.empty()) continue;
    kinds.insert(s.kind);
    for (const auto& refinement : s.kind_when) kinds.insert(refinement.kind);
  }
  return {kinds.begin(), kinds.end()};
}

std::vector<std::string> RuleSet::Codes() const {
  std::set<std::string> codes;
  for (const auto& s : data_->signatures)
    if (!s.code.empty()) codes.insert(s.code);
  return {codes.begin(), codes.end()};
}

}  // namespace oomlens
