#include "core/rules/simple_pattern.h"

#include <algorithm>
#include <cstring>

#include "core/model/ascii.h"
#include "core/rules/pattern_program.h"
#include "core/rules/pattern_syntax.h"

namespace oomlens {

namespace {

constexpr size_t kMaxItems = 64;

}  // namespace

// Reads the subset described in the header; fails on anything else.
class SimplePatternParser {
 public:
  explicit SimplePatternParser(std::string_view p) : p_(p) {}

  bool Parse(SimplePattern* out) {
    bool in_group = false, capturing = false;
    size_t group_first = 0, group_number = 0;
    while (i_ < p_.size()) {
      char c = p_[i_];
      if (c == '(') {
        if (in_group) return false;
        if (p_.compare(i_, 4, "(?P<") == 0) {
          size_t close = p_.find('>', i_);
          if (close == std::string_view::npos) return false;
          i_ = close + 1;
          capturing = true;
        } else if (p_.compare(i_, 3, "(?:") == 0) {
          i_ += 3;
          capturing = false;
        } else if (i_ + 1 < p_.size() && p_[i_ + 1] == '?') {
          return false;  // flags, lookarounds, other group kinds
        } else {
          ++i_;
          capturing = true;
        }
        in_group = true;
        group_first = out->items_.size();
        if (capturing) {
          group_number = out->groups_.size();
          out->groups_.push_back({group_first, group_first});
        }
        continue;
      }
      if (c == ')') {
        if (!in_group) return false;
        ++i_;
        if (i_ < p_.size() && IsQuantifier(p_[i_])) return false;  // a quantified group
        if (capturing) out->groups_[group_number].end = out->items_.size();
        in_group = false;
        continue;
      }
      SimplePattern::Item item;
      if (!Atom(&item.set) || !Quantifier(&item) || out->items_.size() >= kMaxItems) return false;
      out->items_.push_back(item);
    }
    return !in_group && !out->items_.empty();
  }

 private:
  bool Atom(ByteSet* set) {
    char c = p_[i_++];
    if (c == '[') return ReadClass(p_, &i_, false, set);
    if (c == '.') {
      AddDot(set);
      return true;
    }
    if (c == '\\') return i_ < p_.size() && ReadEscapedSet(p_[i_++], false, set);
    if (std::strchr("]{}*+?|^$", c)) return false;
    Add(set, static_cast<unsigned char>(c));
    return true;
  }

  bool Quantifier(SimplePattern::Item* item) {
    if (i_ >= p_.size()) return true;
    char c = p_[i_];
    if (c == '?' || c == '*' || c == '+') {
      ++i_;
      item->min = c == '+' ? 1 : 0;
      item->max = c == '?' ? 1 : kManyRepeats;
    } else if (c == '{') {
      if (!ReadRepeatCounts(p_, &i_, &item->min, &item->max)) return false;
    } else {
      return true;
    }
    return i_ >= p_.size() || !IsQuantifier(p_[i_]);  // lazy and doubled quantifiers: RE2's
  }

  std::string_view p_;
  size_t i_ = 0;
};

bool SimplePattern::NeedsBacktracking() const {
  for (size_t i = 0; i < items_.size(); ++i) {
    if (items_[i].min == items_[i].max) continue;
    ByteSet follow{};  // what the items up to the next required one can start with
    for (size_t j = i + 1; j < items_.size(); ++j) {
      AddAll(&follow, items_[j].set);
      if (items_[j].min > 0) break;
    }
    if (Intersects(items_[i].set, follow)) return true;
  }
  return false;
}

SimplePattern::SimplePattern() = default;
SimplePattern::~SimplePattern() = default;

std::unique_ptr<SimplePattern> SimplePattern::Compile(std::string_view pattern) {
  std::unique_ptr<SimplePattern> out(new SimplePattern());
  SimplePatternParser parser(pattern);
  if (!parser.Parse(out.get()) || out->NeedsBacktracking()) {
    out->items_.clear();
    out->groups_.clear();
    out->lazy_ = std::make_unique<LazyProgram>();
    out->lazy_->pattern = pattern;
    return out;
  }
  for (Item& item : out->items_) item.once = item.min == 1 && item.max == 1;
  for (const Item& item : out->items_) {  // leading single bytes, exactly once each
    unsigned char byte = 0;
    if (Members(item.set, &byte) != 1 || !item.once) break;
    out->prefix_ += static_cast<char>(byte);
  }
  return out;
}

// Read the first time a search needs it (most patterns of a rule set never run);
// null when it does not take the pattern.
const PatternProgram* SimplePattern::Program() const {
  std::call_once(lazy_->once, [this] { lazy_->program = PatternProgram::Compile(lazy_->pattern); });
  return lazy_->program.get();
}

// The greedy pass from start; item_start[k] is where item k began, item_start[n]
// the end. The first `known` items (the prefix, already found there) are skipped:
// item k < known began at start + k (Match reads them so).
bool SimplePattern::Attempt(std::string_view text, size_t start, size_t known, size_t* end,
                            size_t* item_start) const {
  size_t p = start + known;
  for (size_t k = known; k < items_.size(); ++k) {
    const Item& item = items_[k];
    item_start[k] = p;
    if (item.once) {  // most items: one byte of a set, no loop
      if (p < text.size() && Has(item.set, static_cast<unsigned char>(text[p]))) {
        ++p;
        continue;
      }
      *end = p;
      return false;
    }
    uint32_t count = 0;
    while (count < item.max && p < text.size() && Has(item.set, static_cast<unsigned char>(text[p]))) {
      ++p;
      ++count;
    }
    if (count < item.min) {
      *end = p;
      return false;
    }
  }
  item_start[items_.size()] = p;
  *end = p;
  return true;
}

bool SimplePattern::MatchesAs(const SimplePattern& other) const {
  auto same = [](const Item& a, const Item& b) { return a.set == b.set && a.min == b.min && a.max == b.max; };
  return !lazy_ && !other.lazy_ && !items_.empty() && prefix_ == other.prefix_ &&
         std::equal(items_.begin(), items_.end(), other.items_.begin(), other.items_.end(), same);
}

SimplePattern::Result SimplePattern::Match(std::string_view text, size_t pos, std::string_view* sub,
                                           int nsub) const {
  if (lazy_) {
    const PatternProgram* program = Program();
    return program ? program->Match(text, pos, sub, nsub) : Result::kGaveUp;
  }
  size_t item_start[kMaxItems + 1];
  size_t budget = 4 * (text.size() - std::min(pos, text.size())) + 256;  // bytes read, then RE2 takes over
  for (size_t start = pos; start <= text.size(); ++start) {
    if (!prefix_.empty()) {
      start = FindBytes(text, prefix_, start);
      if (start == std::string_view::npos) return Result::kNoMatch;
    } else if (items_[0].min > 0 &&
               (start == text.size() || !Has(items_[0].set, static_cast<unsigned char>(text[start])))) {
      continue;
    }
    size_t end = 0;
    bool matched = Attempt(text, start, prefix_.size(), &end, item_start);
    size_t read = end - start + 1;
    if (read > budget) return Result::kGaveUp;
    budget -= read;
    if (!matched) continue;
    for (int g = 0; g < nsub; ++g) {
      if (g == 0) {
        sub[0] = text.substr(start, end - start);
      } else if (static_cast<size_t>(g) <= groups_.size()) {
        const Group& group = groups_[static_cast<size_t>(g - 1)];
        size_t from = ItemStart(group.first, start, item_start), to = ItemStart(group.end, start, item_start);
        sub[g] = text.substr(from, to - from);
      } else {
        sub[g] = std::string_view();
      }
    }
    return Result::kMatch;
  }
  return Result::kNoMatch;
}

}  // namespace oomlens
