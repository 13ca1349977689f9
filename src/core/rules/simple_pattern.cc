#include "core/rules/simple_pattern.h"

#include <cstring>
#include <limits>

namespace oomlens {

namespace {

constexpr uint32_t kMany = std::numeric_limits<uint32_t>::max();
constexpr size_t kMaxItems = 64;
constexpr uint32_t kMaxCount = 1000;  // RE2's own limit on {n,m}

using ByteSet = std::array<uint64_t, 4>;

void Add(ByteSet* set, unsigned char c) { (*set)[c >> 6] |= uint64_t{1} << (c & 63); }
void AddRange(ByteSet* set, unsigned char lo, unsigned char hi) {
  for (unsigned c = lo; c <= hi; ++c) Add(set, static_cast<unsigned char>(c));
}
void AddAll(ByteSet* set, const ByteSet& other) {
  for (size_t i = 0; i < 4; ++i) (*set)[i] |= other[i];
}
bool Intersects(const ByteSet& a, const ByteSet& b) {
  for (size_t i = 0; i < 4; ++i)
    if (a[i] & b[i]) return true;
  return false;
}

// \d \w \s (RE2's Perl classes) into set; false for other letters.
bool PerlClass(char c, ByteSet* set) {
  switch (c) {
    case 'd': AddRange(set, '0', '9'); return true;
    case 'w':
      AddRange(set, '0', '9');
      AddRange(set, 'A', 'Z');
      AddRange(set, 'a', 'z');
      Add(set, '_');
      return true;
    case 's':
      for (char s : {'\t', '\n', '\f', '\r', ' '}) Add(set, static_cast<unsigned char>(s));
      return true;
    default: return false;
  }
}

// The byte an escape stands for (\t \n \r \f, or escaped punctuation); -1 otherwise.
int EscapedByte(char c) {
  switch (c) {
    case 't': return '\t';
    case 'n': return '\n';
    case 'r': return '\r';
    case 'f': return '\f';
    default:
      if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
          static_cast<unsigned char>(c) >= 0x80)
        return -1;
      return static_cast<unsigned char>(c);
  }
}

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
        if (i_ < p_.size() && std::strchr("*+?{", p_[i_])) return false;  // a quantified group
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
    if (c == '[') return Class(set);
    if (c == '.') {
      AddRange(set, 0, 255);
      (*set)['\n' >> 6] &= ~(uint64_t{1} << ('\n' & 63));  // RE2's dot stops at a newline
      return true;
    }
    if (c == '\\') {
      if (i_ >= p_.size()) return false;
      char e = p_[i_++];
      if (PerlClass(e, set)) return true;
      int byte = EscapedByte(e);
      if (byte < 0) return false;
      Add(set, static_cast<unsigned char>(byte));
      return true;
    }
    if (std::strchr("]{}*+?|^$", c)) return false;
    Add(set, static_cast<unsigned char>(c));
    return true;
  }

  // After '[': single bytes, ranges, escapes; an optional leading '^'.
  bool Class(ByteSet* set) {
    bool negate = i_ < p_.size() && p_[i_] == '^';
    if (negate) ++i_;
    if (i_ < p_.size() && p_[i_] == ']') return false;  // "[]...]": leave it to RE2
    ByteSet members{};
    while (i_ < p_.size() && p_[i_] != ']') {
      int lo = ClassByte(&members);
      if (lo == -2) return false;
      if (lo == -1) continue;  // a Perl class was added
      if (i_ + 1 < p_.size() && p_[i_] == '-' && p_[i_ + 1] != ']') {
        ++i_;
        int hi = ClassByte(&members);
        if (hi < 0 || hi < lo) return false;
        AddRange(&members, static_cast<unsigned char>(lo), static_cast<unsigned char>(hi));
      } else {
        Add(&members, static_cast<unsigned char>(lo));
      }
    }
    if (i_ >= p_.size()) return false;
    ++i_;  // ']'
    for (size_t w = 0; w < 4; ++w) (*set)[w] = negate ? ~members[w] : members[w];
    return true;
  }

  // One member of a class: its byte, -1 when it was a Perl class (added), -2 on error.
  int ClassByte(ByteSet* members) {
    char c = p_[i_++];
    if (c == '[') return -2;  // [:alpha:] and friends
    if (c != '\\') return static_cast<unsigned char>(c);
    if (i_ >= p_.size()) return -2;
    char e = p_[i_++];
    if (PerlClass(e, members)) return -1;
    int byte = EscapedByte(e);
    return byte < 0 ? -2 : byte;
  }

  bool Quantifier(SimplePattern::Item* item) {
    if (i_ >= p_.size()) return true;
    char c = p_[i_];
    if (c == '?' || c == '*' || c == '+') {
      ++i_;
      item->min = c == '+' ? 1 : 0;
      item->max = c == '?' ? 1 : kMany;
    } else if (c == '{') {
      if (!Counts(item)) return false;
    } else {
      return true;
    }
    return i_ >= p_.size() || !std::strchr("?+*{", p_[i_]);  // lazy and doubled quantifiers: RE2's
  }

  // {n}, {n,} or {n,m}
  bool Counts(SimplePattern::Item* item) {
    size_t close = p_.find('}', i_);
    if (close == std::string_view::npos) return false;
    std::string_view body = p_.substr(i_ + 1, close - i_ - 1);
    size_t comma = body.find(',');
    auto number = [](std::string_view digits, uint32_t* out) {
      if (digits.empty() || digits.size() > 4) return false;
      *out = 0;
      for (char d : digits) {
        if (d < '0' || d > '9') return false;
        *out = *out * 10 + static_cast<uint32_t>(d - '0');
      }
      return *out <= kMaxCount;
    };
    if (!number(body.substr(0, comma), &item->min)) return false;
    if (comma == std::string_view::npos) {
      item->max = item->min;
    } else if (comma + 1 == body.size()) {
      item->max = kMany;
    } else if (!number(body.substr(comma + 1), &item->max) || item->max < item->min) {
      return false;
    }
    i_ = close + 1;
    return true;
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

std::unique_ptr<SimplePattern> SimplePattern::Compile(std::string_view pattern) {
  std::unique_ptr<SimplePattern> out(new SimplePattern());
  SimplePatternParser parser(pattern);
  if (!parser.Parse(out.get()) || out->NeedsBacktracking()) return nullptr;
  for (const Item& item : out->items_) {  // leading single bytes, exactly once each
    int members = 0, byte = 0;
    for (int w = 0; w < 4; ++w) {
      members += __builtin_popcountll(item.set[w]);
      if (item.set[w] != 0) byte = 64 * w + __builtin_ctzll(item.set[w]);
    }
    if (members != 1 || item.min != 1 || item.max != 1) break;
    out->prefix_ += static_cast<char>(byte);
  }
  return out;
}

// The greedy pass from start; item_start[k] is where item k began, item_start[n]
// the end. The first `known` items (the prefix, already found there) are skipped.
bool SimplePattern::Attempt(std::string_view text, size_t start, size_t known, size_t* end,
                            size_t* item_start) const {
  for (size_t k = 0; k < known; ++k) item_start[k] = start + k;
  size_t p = start + known;
  for (size_t k = known; k < items_.size(); ++k) {
    const Item& item = items_[k];
    item_start[k] = p;
    uint32_t count = 0;
    while (count < item.max && p < text.size() && item.Has(static_cast<unsigned char>(text[p]))) {
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

SimplePattern::Result SimplePattern::Match(std::string_view text, size_t pos, std::string_view* sub,
                                           int nsub) const {
  size_t item_start[kMaxItems + 1];
  size_t budget = 4 * (text.size() - std::min(pos, text.size())) + 256;  // bytes read, then RE2 takes over
  for (size_t start = pos; start <= text.size(); ++start) {
    if (!prefix_.empty()) {
      start = text.find(prefix_, start);
      if (start == std::string_view::npos) return Result::kNoMatch;
    } else if (items_[0].min > 0 &&
               (start == text.size() || !items_[0].Has(static_cast<unsigned char>(text[start])))) {
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
        sub[g] = text.substr(item_start[group.first], item_start[group.end] - item_start[group.first]);
      } else {
        sub[g] = std::string_view();
      }
    }
    return Result::kMatch;
  }
  return Result::kNoMatch;
}

}  // namespace oomlens
