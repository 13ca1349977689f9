#include "core/rules/signature_patterns.h"

#include <re2/re2.h>

#include <atomic>
#include <cctype>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <vector>

#include "core/model/ascii.h"
#include "core/rules/rule_data.h"

namespace oomlens {
namespace {

struct Macro {
  const char* name;
  const char* regex;
};

// A size as printed: "29.49G", "0B", "-2.55G", "6,532,939,776 bytes", "20.00 MiB",
// "1.5e+09 bytes", optionally followed by an exact count: "3.95G (4,237,689,856 bytes)",
// "(rounded to N)". A whole token or nothing: never the "0" of "0x10M" or the "10"
// of "x10M" (word boundaries on both sides). Units in any case ("1.5 gb", "38427376kb",
// "8.00m"; a lone lower-case letter only attached to the number) and spelt out
// ("2048 megabytes"). A number that runs on into what no unit reads ("1,5 GiB") is
// refused when its facts are read (RunOnEnd), never read as its leading digits.
constexpr Macro kMacros[] = {
    {"{size}",
     R"((?:-?\b\d+(?:,\d{3})*(?:\.\d+)?(?:[eE][+-]?\d+)?(?:\s?(?:[KMGTPE][iI]?B?|[kmgtpe][iI]?b|[KMGTPE][iI]?b|[kmgtpe][iI]?B|B|bytes?|(?:kilo|mega|giga|tera|peta)bytes?)\b|[kmgtpe]\b|\b))"
     R"((?:\s*\(\s*(?:rounded to\s*)?-?\d+(?:,\d{3})*\s*(?:B|bytes)?\s*\))?))"},
    {"{int}", R"(\d+)"},
    {"{id}", R"([\w.:/-]+)"},
};

std::string Expand(const std::string& src) {
  std::string out = src;
  for (const auto& m : kMacros) {
    std::string name = m.name;
    for (size_t pos = out.find(name); pos != std::string::npos; pos = out.find(name, pos)) {
      out.replace(pos, name.size(), m.regex);
      pos += std::string(m.regex).size();
    }
  }
  return out;
}

}  // namespace

int ReadCapturingGroups(std::string_view pattern, std::map<std::string, int>* named) {
  int groups = 0;
  for (size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '\\') {
      if (i + 1 < pattern.size() && pattern[i + 1] == 'Q') {  // literal text up to \E
        size_t end = pattern.find("\\E", i + 2);
        i = end == std::string_view::npos ? pattern.size() : end + 1;
      } else {
        ++i;
      }
    } else if (c == '[') {  // a class: "]" first is itself; "[:alpha:]" inside
      size_t j = i + 1;
      if (j < pattern.size() && pattern[j] == '^') ++j;
      if (j < pattern.size() && pattern[j] == ']') ++j;
      for (; j < pattern.size() && pattern[j] != ']'; ++j) {
        if (pattern[j] == '\\') ++j;
        else if (pattern.compare(j, 2, "[:") == 0 && pattern.find(":]", j + 2) != std::string_view::npos)
          j = pattern.find(":]", j + 2) + 1;
      }
      i = j;
    } else if (c == '(') {
      if (i + 1 >= pattern.size() || pattern[i + 1] != '?') {
        ++groups;
        continue;
      }
      size_t name_at = pattern.compare(i + 2, 2, "P<") == 0  ? i + 4
                       : pattern.compare(i + 2, 1, "<") == 0 ? i + 3
                                                             : 0;
      size_t close = name_at ? pattern.find('>', name_at) : std::string_view::npos;
      if (close == std::string_view::npos) continue;  // (?:, (?i), (?i:...): no group
      (*named)[std::string(pattern.substr(name_at, close - name_at))] = ++groups;
    }
  }
  return groups;
}

struct LazyRegex::State {
  std::string pattern;
  std::map<std::string, int> named;
  int groups = 0;
  std::atomic<const RE2*> re{nullptr};
  std::mutex mutex;  // held while compiling
  std::unique_ptr<RE2> owned;
};

const std::string& LazyRegex::pattern() const { return state_->pattern; }
const std::map<std::string, int>& LazyRegex::named_groups() const { return state_->named; }
int LazyRegex::groups() const { return state_->groups; }
bool LazyRegex::compiled() const { return state_->re.load(std::memory_order_acquire) != nullptr; }

const RE2* LazyRegex::Compiled() const {
  if (const RE2* re = state_->re.load(std::memory_order_acquire)) return re;
  std::lock_guard<std::mutex> lock(state_->mutex);
  if (!state_->owned) {
    RE2::Options options(RE2::Latin1);
    options.set_log_errors(false);
    state_->owned = std::make_unique<RE2>(state_->pattern, options);
    state_->re.store(state_->owned.get(), std::memory_order_release);
  }
  return state_->owned.get();
}

bool LazyRegex::Compile(std::string* error) const {
  const RE2& re = *Compiled();
  if (!re.ok()) {
    *error = re.error();
    return false;
  }
  if (re.NamedCapturingGroups() != state_->named || re.NumberOfCapturingGroups() != state_->groups) {
    *error = "RE2 numbers its groups otherwise than oomlens read them from its text";
    return false;
  }
  return true;
}

// A pattern written more than once is read once: the general reader's figure
// grammar is shared by its signatures, and every RuleSet of a process (the tests',
// the Python module's) loads the same rules. A pattern no rule holds any more is
// freed.
LazyRegex CompilePattern(const std::string& src, std::string* error, bool now) {
  static std::mutex mutex;
  static std::map<std::string, std::weak_ptr<LazyRegex::State>> read;
  LazyRegex regex;
  {
    std::lock_guard<std::mutex> lock(mutex);
    std::weak_ptr<LazyRegex::State>& slot = read[src];
    regex.state_ = slot.lock();
    if (!regex.state_) {
      regex.state_ = std::make_shared<LazyRegex::State>();
      regex.state_->pattern = Expand(src);
      regex.state_->groups = ReadCapturingGroups(regex.state_->pattern, &regex.state_->named);
      slot = regex.state_;
    }
    if (read.size() > 4096) {  // rule sets loaded and dropped over and over: forget the dead
      for (auto it = read.begin(); it != read.end();) it = it->second.expired() ? read.erase(it) : ++it;
    }
  }
  if (!now) return regex;
  const RE2& re = *regex;
  if (!re.ok()) {
    *error = re.error();
    return LazyRegex();
  }
  if (re.NamedCapturingGroups() != regex.named_groups() || re.NumberOfCapturingGroups() != regex.groups()) {
    LazyRegex own;  // read otherwise than RE2 numbers them: RE2's numbers, for this rule alone
    own.state_ = std::make_shared<LazyRegex::State>();
    own.state_->pattern = regex.pattern();
    own.state_->named = re.NamedCapturingGroups();
    own.state_->groups = re.NumberOfCapturingGroups();
    return own;
  }
  return regex;
}

std::string PatternHelp() {
  return "RE2 syntax; name groups (?P<fact>...); macros {size}, {int}, {id}; escape backslashes "
         "in JSON (\\\\d)";
}

bool Contains(const re2::RE2& re, std::string_view text) {
  return RE2::PartialMatch(re2::StringPiece(text), re);
}

bool Contains(const re2::RE2& re, const SimplePattern* simple, std::string_view text) {
  SimplePattern::Result result = simple ? simple->Match(text, 0, nullptr, 0) : SimplePattern::Result::kGaveUp;
  return result == SimplePattern::Result::kGaveUp ? Contains(re, text)
                                                  : result == SimplePattern::Result::kMatch;
}

namespace {

// Whether pattern has a '|' outside every group ("a|b"), or may have (\Q...\E):
// one inside a group ("a (?:b|c)") leaves the text before the group a prefix.
bool MayAlternateAtTop(std::string_view pattern) {
  int depth = 0;
  for (size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '\\') {
      if (i + 1 < pattern.size() && pattern[i + 1] == 'Q') return true;
      ++i;
    } else if (c == '[') {  // a class: its ']' first, or after '^', is itself
      size_t j = i + 1;
      if (j < pattern.size() && pattern[j] == '^') ++j;
      if (j < pattern.size() && pattern[j] == ']') ++j;
      while (j < pattern.size() && pattern[j] != ']') j += pattern[j] == '\\' ? 2 : 1;
      i = j;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')') {
      --depth;
    } else if (c == '|' && depth <= 0) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::string LiteralPrefix(std::string_view pattern) {
  std::string prefix;
  size_t i = 0;
  while (i < pattern.size()) {
    char c = pattern[i];
    size_t next = i + 1;
    if (c == '\\') {  // an escaped punctuation character is itself; \d, \x41, \Q... are not literals here
      if (next >= pattern.size() || std::isalnum(static_cast<unsigned char>(pattern[next]))) break;
      c = pattern[next++];
    } else if (std::strchr("()[]{}.*+?^$", c)) {
      break;
    }
    if (next < pattern.size() && std::strchr("*+?{", pattern[next])) break;  // optional or repeated
    prefix += c;
    i = next;
  }
  return prefix.empty() || MayAlternateAtTop(pattern) ? "" : prefix;  // most patterns: no second pass
}

namespace {

constexpr int kAnchoredTries = 4;  // then one unanchored search: no quadratic worst case

// The leftmost match of re in text from pos, with its groups. When every match
// starts with a literal prefix, the match is tried anchored where the prefix
// occurs: RE2 then reads captures with its one-pass engine instead of running
// its DFA forwards and backwards first, several times faster on short lines.
bool LeftmostMatch(const FactPattern& pattern, std::string_view text, size_t pos, re2::StringPiece* sub,
                   int groups) {
  size_t at = pattern.prefix.empty() ? pos : text.find(pattern.prefix, pos);
  if (at == std::string_view::npos) return false;  // the pattern is not compiled for a text it cannot match
  const RE2& re = *pattern.re;
  re2::StringPiece all(text);
  if (!pattern.prefix.empty()) {
    for (int tries = 0; tries < kAnchoredTries; ++tries) {
      if (at == std::string_view::npos) return false;
      if (re.Match(all, at, text.size(), RE2::ANCHOR_START, sub, groups)) return true;
      at = text.find(pattern.prefix, at + 1);
    }
    if (at == std::string_view::npos) return false;
    pos = at;
  }
  return re.Match(all, pos, text.size(), RE2::UNANCHORED, sub, groups);
}

// Where a bare number captured at [start, end) of text really ends, when it runs on
// into digits the pattern left out: "1,5" (a decimal comma), "8.00x", "1 024.00"
// (thousands apart). end when it does not run on.
size_t RunOnEnd(std::string_view text, size_t start, size_t end) {
  auto digit = [&](size_t i) { return i < text.size() && IsDigit(text[i]); };
  auto word = [&](size_t i) { return i < text.size() && IsAlnum(text[i]); };
  if (end == start || !digit(end - 1)) return end;  // it ends with a unit: read whole
  if (end >= text.size()) return end;
  bool runs = ((text[end] == '.' || text[end] == ',') && digit(end + 1)) || word(end);
  bool spaced = end - start <= 3 && end < text.size() && text[end] == ' ' && digit(end + 1) &&
                digit(end + 2) && digit(end + 3) && !digit(end + 4);
  if (!runs && !spaced) return end;
  size_t i = end;
  while (i < text.size() &&
         (word(i) || ((text[i] == '.' || text[i] == ',' || text[i] == ' ') && digit(i + 1))))
    ++i;
  return i;
}

// Where a bare number captured at [start, end) of text ends when a word after it
// says what it counts, and that is not bytes: "allocating 23440 words", "64 bits",
// "4096 tokens". Such a count is refused as a byte size, never read as bytes; a
// signature that knows the unit reads it with a suffix (`__words`). end otherwise.
size_t CountNounEnd(std::string_view text, size_t start, size_t end) {
  static constexpr std::string_view kCounted[] = {"bits",    "words",   "elements", "items",   "tokens",
                                                  "entries", "records", "rows",     "objects", "pages",
                                                  "blocks",  "floats",  "values",   "tensors"};
  if (end == start || !IsDigit(text[end - 1])) return end;
  if (end + 1 >= text.size() || text[end] != ' ') return end;
  size_t i = end + 1;
  while (i < text.size() && IsAlpha(text[i])) ++i;
  std::string_view noun = text.substr(end + 1, i - end - 1);
  if (noun.size() < 4) return end;  // the shortest, "bits", "rows"
  for (std::string_view counted : kCounted)
    if (noun == counted) return i;
  return end;
}

}  // namespace

namespace {

// Up to this many groups, a match's spans live on the stack.
constexpr int kStackGroups = 8;

// Spans left unset until a match writes them: SimplePattern and RE2 write every
// span they report, and zeroing 8 of them was 3% of reading a memory figure line.
struct MatchSpans {
  MatchSpans() {}  // NOLINT: deliberately uninitialised
  union {
    std::string_view at[kStackGroups];
  };
};

// The leftmost match of pattern from pos into sub[0, groups): by SimplePattern
// when it answers, by RE2 when it gives up.
bool MatchSpansFrom(const FactPattern& pattern, std::string_view text, size_t pos, std::string_view* sub,
                    int groups) {
  if (pattern.simple) {
    SimplePattern::Result simple = pattern.simple->Match(text, pos, sub, groups);
    if (simple != SimplePattern::Result::kGaveUp) return simple == SimplePattern::Result::kMatch;
  }
  std::vector<re2::StringPiece> pieces(static_cast<size_t>(groups));
  if (!LeftmostMatch(pattern, text, pos, pieces.data(), groups)) return false;
  for (int g = 0; g < groups; ++g) sub[g] = std::string_view(pieces[g].data(), pieces[g].size());
  return true;
}

// Calls found with what each named group of a match captured (sub: its spans in text).
void ReadGroups(const FactPattern& pattern, std::string_view text, const std::string_view* sub,
                const std::function<void(const FactGroup&, std::string_view)>& found) {
  for (const auto& group : pattern.groups) {
    std::string_view s = sub[group.index];
    if (s.data() == nullptr) continue;
    size_t start = static_cast<size_t>(s.data() - text.data()), stop = start + s.size();
    if (group.info->type == FactType::kSize) {  // then refused as a size
      stop = RunOnEnd(text, start, stop);
      if (group.bytes_per_unit == 1) stop = CountNounEnd(text, start, stop);
    }
    found(group, text.substr(start, stop - start));
  }
}

}  // namespace

bool MatchFactsFrom(const FactPattern& pattern, std::string_view text, size_t pos, size_t* end,
                    const std::function<void(const FactGroup&, std::string_view)>& found) {
  if (pos > text.size()) return false;
  int groups = pattern.re.groups() + 1;  // read without compiling: SimplePattern may answer alone
  MatchSpans stack;
  std::vector<std::string_view> many;
  std::string_view* sub = stack.at;
  if (groups > kStackGroups) {
    many.resize(static_cast<size_t>(groups));
    sub = many.data();
  }
  if (!MatchSpansFrom(pattern, text, pos, sub, groups)) return false;
  *end = static_cast<size_t>(sub[0].data() - text.data()) + sub[0].size();
  ReadGroups(pattern, text, sub, found);
  return true;
}

bool MatchFactSpans(const FactPattern& pattern, std::string_view text, FactMatch* match) {
  int groups = pattern.re.groups() + 1;
  match->text = text;
  match->spans.resize(static_cast<size_t>(groups));
  return MatchSpansFrom(pattern, text, 0, match->spans.data(), groups);
}

void ReadFactMatch(const FactPattern& pattern, const FactMatch& match,
                   const std::function<void(const FactGroup&, std::string_view)>& found) {
  ReadGroups(pattern, match.text, match.spans.data(), found);
}

void MatchFacts(const FactPattern& pattern, std::string_view text,
                const std::function<void(const FactGroup&, std::string_view)>& found) {
  size_t end = 0;
  MatchFactsFrom(pattern, text, 0, &end, found);
}

void ForEachCapture(const re2::RE2& re, std::string_view text,
                    const std::function<void(std::string_view)>& found) {
  re2::StringPiece sub[2];
  size_t pos = 0;
  while (pos <= text.size() && re.Match(re2::StringPiece(text), pos, text.size(), RE2::UNANCHORED, sub, 2)) {
    if (sub[1].data() != nullptr) found(std::string_view(sub[1].data(), sub[1].size()));
    size_t end = static_cast<size_t>(sub[0].data() - text.data()) + sub[0].size();
    pos = std::max(end, pos + 1);
  }
}

}  // namespace oomlens

namespace oomlens {

namespace {

// A bare count of units of bytes_per_unit bytes ("23440" words): its bytes, exactly.
bool ReadUnits(const FactGroup& group, std::string_view text, FactValue* value, std::string* error) {
  if (!MakeFact(*group.info, text, value, error, false)) return false;
  if (value->tolerance != 0 || value->integer < 0 ||
      value->integer > std::numeric_limits<int64_t>::max() / group.bytes_per_unit) {
    *error = "'" + std::string(text) + "' is not a whole number of " + std::to_string(group.bytes_per_unit) +
             "-byte units that oomlens can hold";
    return false;
  }
  value->integer *= group.bytes_per_unit;
  value->number = static_cast<double>(value->integer);
  value->text = std::to_string(value->integer);
  return true;
}

}  // namespace

bool ReadGroup(const FactGroup& group, std::string_view text, FactValue* value, std::string* error) {
  if (group.values) {
    auto it = group.values->find(std::string(text));
    if (it != group.values->end()) text = it->second;
  }
  bool bare = !text.empty() && IsDigit(text.back());
  if (bare && group.bytes_per_unit != 1) return ReadUnits(group, text, value, error);
  if (!bare || group.unit.empty()) return MakeFact(*group.info, text, value, error, group.decimal);
  value->text.assign(text);  // "3.10" of a __gib group reads as "3.10G", built where it is kept
  value->text += group.unit;
  return MakeFact(*group.info, value->text, value, error, group.decimal);
}

}  // namespace oomlens
