// Loads the "signatures" entries of rule documents: patterns, listings,
// aggregates, refinements (see docs/rules.md).
#include <re2/re2.h>

#include <algorithm>
#include <cctype>

#include "core/rules/doc_loader.h"
#include "core/rules/signature_patterns.h"

namespace oomlens {
namespace {

const std::set<std::string> kSignatureKeys = {
    "id",        "kind",       "code",   "title",     "description", "priority",  "literals",   "start",
    "complete",  "follow",     "facts",  "require",   "max_wrap",    "max_lines", "samples",    "items",
    "annotates", "aggregates", "reject", "kind_when", "after",       "before",    "series",     "activity",
    "fragment",  "match",      "values", "joins",     "phase",       "indented",  "input_facts"};
const std::set<std::string> kAggregateKeys = {"pattern", "sum", "max", "count"};
const std::set<std::string> kKindWhenKeys = {"pattern", "kind"};
const std::set<std::string> kItemKeys = {"start", "each", "fields", "max_items"};

// "<fact>__decimal" reads SI sizes ("268.96MB" = 268.96e6 bytes); "<fact>__gib",
// "__mib", "__gb", "__mb" read bare numbers printed in that unit ("7.07" GB);
// "__words" a bare count of 32-bit words (the SparseCore compiler's unit).
void ReadUnitSuffix(std::string* name, FactGroup* group) {
  static const struct {
    const char* suffix;
    bool decimal;
    const char* unit;
    int64_t bytes_per_unit;
  } kSuffixes[] = {{"__decimal", true, "", 1}, {"__gib", false, "G", 1}, {"__mib", false, "M", 1},
                   {"__gb", true, "G", 1},     {"__mb", true, "M", 1},   {"__words", false, "", 4}};
  for (const auto& s : kSuffixes) {
    std::string suffix = s.suffix;
    if (name->size() <= suffix.size() ||
        name->compare(name->size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    name->resize(name->size() - suffix.size());
    group->decimal = s.decimal;
    group->unit = s.unit;
    group->bytes_per_unit = s.bytes_per_unit;
    return;
  }
}

// "@name": an element standing for the elements of the shared list name.
bool IsReference(const json& element) {
  if (!element.is_string()) return false;
  const std::string& s = element.get_ref<const std::string&>();
  return s.size() > 1 && s[0] == '@' && std::all_of(s.begin() + 1, s.end(), [](char c) {
           return std::islower(static_cast<unsigned char>(c)) || c == '_';
         });
}

}  // namespace

bool DocLoader::LoadShared(const json& doc) {
  auto it = doc.find("shared");
  if (it == doc.end()) return true;
  bool ok = it->is_object();
  for (auto entry = it->begin(); ok && entry != it->end(); ++entry)
    ok = entry->is_array() || entry->is_string();
  if (!ok) {
    Error(
        "/shared", "'shared' must be an object of lists and strings",
        R"(write "shared": {"figures": ["pattern", ...], "sentence": "pattern"} and use "@figures" in a signature)");
    return false;
  }
  shared_ = &*it;
  return true;
}

const json* DocLoader::SharedEntry(const json& reference, const std::string& ptr) {
  std::string name = reference.get<std::string>().substr(1);
  auto entry = shared_ ? shared_->find(name) : json::const_iterator();
  if (!shared_ || entry == shared_->end()) {
    Error(ptr, "'@" + name + "' names nothing in 'shared'",
          "define it in this file: \"shared\": {\"" + name + "\": [ ... ]} (a list, or a string)");
    return nullptr;
  }
  shared_used_.insert(name);
  return &*entry;
}

json DocLoader::ExpandList(const json& list, const std::string& at) {
  json expanded = json::array();
  for (size_t i = 0; i < list.size(); ++i) {
    const json& element = list[i];
    std::string here = at + "/" + std::to_string(expanded.size());
    if (!IsReference(element)) {
      if (expanded.size() != i) aliases_.emplace_back(here, at + "/" + std::to_string(i));  // shifted
      expanded.push_back(element);
      continue;
    }
    const json* entry = SharedEntry(element, at + "/" + std::to_string(i));
    if (!entry) continue;
    std::string source = "/shared/" + element.get<std::string>().substr(1);
    if (entry->is_string()) {  // one element
      aliases_.emplace_back(here, source);
      expanded.push_back(*entry);
      continue;
    }
    for (size_t k = 0; k < entry->size(); ++k) {
      aliases_.emplace_back(at + "/" + std::to_string(expanded.size()), source + "/" + std::to_string(k));
      expanded.push_back((*entry)[k]);
    }
  }
  return expanded;
}

void DocLoader::ExpandShared(json* j, const std::string& ptr) {
  aliases_.clear();
  if (!j->is_object()) return;
  for (auto& [key, value] : j->items()) {
    if (value.is_array()) {
      if (std::any_of(value.begin(), value.end(), IsReference)) value = ExpandList(value, ptr + "/" + key);
    } else if (IsReference(value)) {  // a whole string field
      std::string at = ptr + "/" + key;
      const json* entry = SharedEntry(value, at);
      if (entry && entry->is_string()) {
        aliases_.emplace_back(at, "/shared/" + value.get<std::string>().substr(1));
        value = *entry;
      } else if (entry) {
        Error(at, "'" + value.get<std::string>() + "' is a list; '" + key + "' takes one string",
              "share a string for a string field, a list for a list");
      }
    }
  }
}

std::string DocLoader::SourcePointer(const std::string& pointer) const {
  for (const auto& [expanded, source] : aliases_) {
    if (pointer.compare(0, expanded.size(), expanded) == 0 &&
        (pointer.size() == expanded.size() || pointer[expanded.size()] == '/'))
      return source + pointer.substr(expanded.size());
  }
  return pointer;
}

void DocLoader::CheckSharedUsed() {
  if (!shared_) return;
  for (const auto& [name, list] : shared_->items()) {
    if (!shared_used_.count(name))
      Error("/shared/" + name, "shared list '" + name + "' is used by no signature",
            "refer to it as \"@" + name + "\" in a signature's list, or remove it");
  }
}

bool DocLoader::LoadSignature(const json& j, const std::string& ptr, Signature* sig) {
  if (!CheckKeys(j, kSignatureKeys, ptr)) return false;
  size_t before = problems_->size();
  sig->file = name_;
  sig->where = brief_ ? name_ : Where(ptr);  // brief: the checker finds its line again
  String(j, "id", ptr, true, &sig->id);
  String(j, "kind", ptr, true, &sig->kind);
  String(j, "code", ptr, false, &sig->code);
  String(j, "title", ptr, false, &sig->title);
  String(j, "description", ptr, false, &sig->description);
  StringList(j, "literals", ptr, &sig->literals);
  StringList(j, "require", ptr, &sig->require);
  StringList(j, "annotates", ptr, &sig->annotates);
  StringList(j, "after", ptr, &sig->after);
  StringList(j, "before", ptr, &sig->before);
  StringList(j, "joins", ptr, &sig->joins);
  String(j, "activity", ptr, false, &sig->activity);
  if (!sig->activity.empty() && sig->activity != "compile" && sig->activity != "step" &&
      sig->activity != "phase" && sig->activity != "frame" && sig->activity != "budget") {
    Error(ptr + "/activity", "'activity' must be \"compile\", \"step\", \"phase\", \"frame\" or \"budget\"",
          "compile: a line naming a program being compiled (fact program); step: a completed step; phase: a "
          "line that shows the job's phase (with \"phase\"); frame: a traceback frame that shows it (with "
          "\"phase\"); budget: figures of a memory budget");
  }
  LoadPhase(j, ptr, sig);
  Bool(j, "fragment", ptr,
       "true: a sentence of a larger message, which continues an open message of its kind", &sig->fragment);
  Bool(j, "series", ptr, "true: each match is one memory figure of a series", &sig->series);
  Bool(j, "indented", ptr,
       "true: an activity's facts are read from its line with the log prefix and indentation kept",
       &sig->indented);
  if (sig->indented && sig->activity.empty() && !sig->series)
    Error(ptr + "/indented", "'indented' applies to figures only (a signature with 'activity' or 'series')",
          "remove it, or give the signature an 'activity'");
  if (!sig->joins.empty() && (sig->listing() || !sig->annotates.empty() || sig->series)) {
    Error(ptr + "/joins",
          "a memory record ('joins') is a message of its own, not a listing, annotation or figure",
          "keep 'joins' for a report of memory held that joins the failure it was printed for, in any input");
  }
  if ((!sig->after.empty() || !sig->before.empty()) && !sig->annotates.empty()) {
    Error(ptr + "/annotates", "a listing ('after', 'before') cannot also annotate the next event",
          "keep 'annotates' for a warning that precedes an event anywhere, 'before' for a listing right "
          "before it");
  }
  if (sig->literals.empty() && (sig->after.empty() || !sig->before.empty())) {
    Error(ptr, "missing 'literals'",
          "list strings of which every start line holds at least one (the fast prefilter)");
  }
  Int(j, "priority", ptr, 0, 1000, &sig->priority);
  Int(j, "max_wrap", ptr, 0, 1000, &sig->max_wrap);
  if (Int(j, "max_lines", ptr, 0, 1000000, &sig->max_lines))
    sig->max_lines = std::max(1, sig->max_lines);  // long dumps
  if (auto it = j.find("match"); it != j.end()) {
    if (it->is_number() && it->get<double>() > 0 && it->get<double>() <= 1) sig->match = it->get<double>();
    else
      Error(ptr + "/match", "'match' must be a number above 0 and at most 1",
            "how sure a match of this signature is: 1 for a family's own wording, lower for a structural "
            "guess");
  }
  sig->start = Regex(j, "start", ptr, true);
  if (sig->start) sig->start_simple = SimplePattern::Compile(sig->start.pattern());
  sig->complete = Regex(j, "complete", ptr, false);
  sig->follow = Regex(j, "follow", ptr, false);
  FactPatterns(j, "facts", ptr, false, &sig->facts);
  FactPatterns(j, "input_facts", ptr, false, &sig->input_facts);
  sig->items = Items(j, ptr);
  Aggregates(j, ptr, &sig->aggregates);
  KindWhen(j, ptr, &sig->kind_when);
  Values(j, ptr, &sig->facts);
  sig->reject = Regex(j, "reject", ptr, false);
  for (const auto& name : sig->require) {
    bool captured = false;
    for (const auto& f : sig->facts)
      for (const auto& g : f.groups) captured = captured || g.info->name == name;
    if (!captured)
      Error(ptr + "/require", "required fact '" + name + "' is captured by no pattern",
            "add a pattern with (?P<" + name + ">...) to 'facts'");
  }
  Samples(j, ptr, &sig->samples);
  sig->brief = brief_;
  return problems_->size() == before;
}

// Compiles a list of patterns whose named groups are facts (or, with fields,
// allocation fields). Group name suffixes say how sizes are printed (see
// ReadUnitSuffix).
// A family's phase (its failures happen then), or the phase an activity line shows.
void DocLoader::LoadPhase(const json& j, const std::string& ptr, Signature* sig) {
  bool sign = sig->activity == "phase" || sig->activity == "frame";
  String(j, "phase", ptr, sign, &sig->phase);
  // "unknown" on a phase line: it ends the phase a line before it showed
  bool ends = sig->activity == "phase" && sig->phase == "unknown";
  if (!sig->phase.empty() && !ends) CheckPhases({sig->phase}, ptr + "/phase");
  if (!sig->phase.empty() && !sig->activity.empty() && !sign && sig->activity != "budget") {
    Error(ptr + "/phase",
          "'phase' is for an OOM family or an activity \"phase\" or \"frame\" line, not a " + sig->activity +
              " line",
          "remove \"phase\", or write \"activity\": \"phase\"");
  }
}

bool DocLoader::FactPatterns(const json& obj, const std::string& key, const std::string& ptr, bool fields,
                             std::vector<FactPattern>* out) {
  std::vector<std::string> sources;
  if (!StringList(obj, key, ptr, &sources)) return false;
  const std::string what = fields ? "an allocation field" : "a fact oomlens reads";
  const std::string help = fields ? "name groups after allocation fields (size_bytes, shape, operator, ...)"
                                  : "name groups after facts listed by 'oomlens rules facts'";
  for (size_t i = 0; i < sources.size(); ++i) {
    std::string p = ptr + "/" + key + "/" + std::to_string(i);
    std::string error;
    FactPattern pattern;
    pattern.re = CompilePattern(sources[i], &error, compile_now_);
    if (!pattern.re) {
      Error(p, "invalid regex: " + error, PatternHelp());
      continue;
    }
    pattern.prefix = LiteralPrefix(pattern.re.pattern());
    pattern.simple = SimplePattern::Compile(pattern.re.pattern());
    for (const auto& [group, index] : pattern.re.named_groups()) {
      std::string name = group;
      FactGroup fact_group{index, nullptr, false, ""};
      ReadUnitSuffix(&name, &fact_group);
      const FactInfo* info = fields ? FindAllocationField(name) : FindFact(name);
      if (!info || info->derived) {
        Error(p, "group '" + group + "' is not " + what, help);
        continue;
      }
      fact_group.info = info;
      pattern.groups.push_back(fact_group);
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
  const json* it = List(obj, "aggregates", ptr);
  for (size_t i = 0; it && i < it->size(); ++i) {
    std::string p = ptr + "/aggregates/" + std::to_string(i);
    const json& a = (*it)[i];
    if (!CheckKeys(a, kAggregateKeys, p)) continue;
    Aggregate agg;
    agg.re = Regex(a, "pattern", p, true);
    if (agg.re) agg.prefix = LiteralPrefix(agg.re.pattern());
    agg.sum = ReadFactName(a, "sum", p);
    agg.max = ReadFactName(a, "max", p);
    agg.count = ReadFactName(a, "count", p);
    if (agg.re && agg.re.groups() != 1) {
      Error(p + "/pattern", "an aggregate pattern needs exactly one capturing group",
            "e.g. \"of size (\\d+)\"");
      continue;
    }
    if (agg.re) out->push_back(std::move(agg));
  }
}

// "values": {"memory_space": {"203": "hbm", ...}}: a text fact printed as a
// code is written as the name the code stands for (codes not listed stay as printed).
void DocLoader::Values(const json& obj, const std::string& ptr, std::vector<FactPattern>* facts) {
  auto it = obj.find("values");
  if (it == obj.end()) return;
  std::string p = ptr + "/values";
  if (!it->is_object()) {
    Error(p, "'values' must be an object of facts", R"(write {"memory_space": {"203": "hbm"}})");
    return;
  }
  for (const auto& [name, table] : it->items()) {
    const FactInfo* info = FindFact(name);
    bool captured = false;
    for (const auto& f : *facts)
      for (const auto& g : f.groups) captured = captured || g.info == info;
    if (!info || info->type != FactType::kText || !captured || !table.is_object()) {
      Error(p + "/" + name,
            "'values' needs a text fact that a pattern of 'facts' captures, with an object of values",
            "name a text fact (oomlens rules facts) and map each printed code to a name: {\"203\": \"hbm\"}");
      continue;
    }
    auto map = std::make_shared<std::map<std::string, std::string>>();
    for (const auto& [code, value] : table.items()) {
      if (value.is_string()) (*map)[code] = value.get<std::string>();
      else Error(p + "/" + name + "/" + code, "a value must be a string", "write \"" + code + "\": \"name\"");
    }
    for (auto& f : *facts)
      for (auto& g : f.groups)
        if (g.info == info) g.values = map;
  }
}

void DocLoader::KindWhen(const json& obj, const std::string& ptr, std::vector<KindRefinement>* out) {
  const json* it = List(obj, "kind_when", ptr);
  for (size_t i = 0; it && i < it->size(); ++i) {
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
    self.prefix = LiteralPrefix(self.re.pattern());
    self.simple = SimplePattern::Compile(self.re.pattern());
    for (const auto& [group, index] : items->start.named_groups()) {
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

}  // namespace oomlens
