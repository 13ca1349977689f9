#include "core/rules/pattern_syntax.h"

namespace oomlens {

namespace {

constexpr uint32_t kMaxCount = 1000;  // RE2's own limit on {n,m}

// One member of a class: its byte, -1 when it was a Perl class (added), -2 on error.
int ClassByte(std::string_view p, size_t* i, ByteSet* members) {
  char c = p[(*i)++];
  if (c == '[') return -2;  // [:alpha:] and friends
  if (c != '\\') return static_cast<unsigned char>(c);
  if (*i >= p.size()) return -2;
  char e = p[(*i)++];
  if (PerlClass(e, members)) return -1;
  int byte = EscapedByte(e);
  return byte < 0 ? -2 : byte;
}

// RE2 reads no leading zero: "{01}" is literal text there, not a count.
bool ReadCount(std::string_view digits, uint32_t* out) {
  if (digits.empty() || digits.size() > 4 || (digits.size() > 1 && digits[0] == '0')) return false;
  *out = 0;
  for (char d : digits) {
    if (d < '0' || d > '9') return false;
    *out = *out * 10 + static_cast<uint32_t>(d - '0');
  }
  return *out <= kMaxCount;
}

}  // namespace

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

int Members(const ByteSet& set, unsigned char* one) {
  int members = 0;
  for (int w = 0; w < 4; ++w) {
    members += __builtin_popcountll(set[w]);
    if (set[w] != 0) *one = static_cast<unsigned char>(64 * w + __builtin_ctzll(set[w]));
  }
  return members;
}

void FoldCase(ByteSet* set) {
  auto pair = [set](unsigned upper) {
    auto u = static_cast<unsigned char>(upper), l = static_cast<unsigned char>(upper + 0x20);
    if (Has(*set, u) || Has(*set, l)) {
      Add(set, u);
      Add(set, l);
    }
  };
  for (unsigned c = 'A'; c <= 'Z'; ++c) pair(c);
  for (unsigned c = 0xC0; c <= 0xDE; ++c)
    if (c != 0xD7) pair(c);  // U+00D7 and U+00F7 are signs, not letters
}

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

void AddDot(ByteSet* set) {
  AddRange(set, 0, 255);
  (*set)['\n' >> 6] &= ~(uint64_t{1} << ('\n' & 63));
}

bool ReadEscapedSet(char e, bool fold, ByteSet* set) {
  if (e == 'D' || e == 'W' || e == 'S') {
    PerlClass(static_cast<char>(e + ('a' - 'A')), set);
    for (uint64_t& w : *set) w = ~w;
    return true;
  }
  if (PerlClass(e, set)) return true;
  int byte = EscapedByte(e);
  if (byte < 0) return false;
  Add(set, static_cast<unsigned char>(byte));
  if (fold) FoldCase(set);
  return true;
}

bool ReadClass(std::string_view p, size_t* i, bool fold, ByteSet* set) {
  bool negate = *i < p.size() && p[*i] == '^';
  if (negate) ++*i;
  if (*i < p.size() && p[*i] == ']') return false;  // "[]...]": leave it to RE2
  ByteSet members{};
  while (*i < p.size() && p[*i] != ']') {
    int lo = ClassByte(p, i, &members);
    if (lo == -2) return false;
    if (lo == -1) continue;  // a Perl class was added
    if (*i + 1 < p.size() && p[*i] == '-' && p[*i + 1] != ']') {
      ++*i;
      int hi = ClassByte(p, i, &members);
      if (hi < 0 || hi < lo) return false;
      AddRange(&members, static_cast<unsigned char>(lo), static_cast<unsigned char>(hi));
    } else {
      Add(&members, static_cast<unsigned char>(lo));
    }
  }
  if (*i >= p.size()) return false;
  ++*i;                          // ']'
  if (fold) FoldCase(&members);  // RE2 folds a class's members, then negates it
  for (size_t w = 0; w < 4; ++w) (*set)[w] = negate ? ~members[w] : members[w];
  return true;
}

bool ReadRepeatCounts(std::string_view p, size_t* i, uint32_t* min, uint32_t* max) {
  size_t close = p.find('}', *i);
  if (close == std::string_view::npos) return false;
  std::string_view body = p.substr(*i + 1, close - *i - 1);
  size_t comma = body.find(',');
  if (!ReadCount(body.substr(0, comma), min)) return false;
  if (comma == std::string_view::npos) {
    *max = *min;
  } else if (comma + 1 == body.size()) {
    *max = kManyRepeats;
  } else if (!ReadCount(body.substr(comma + 1), max) || *max < *min) {
    return false;
  }
  *i = close + 1;
  return true;
}

}  // namespace oomlens
