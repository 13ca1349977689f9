#include "core/input/unwrap.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/model/ascii.h"
#include "core/model/json_depth.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace oomlens {
namespace {

using json = nlohmann::json;

// "2026-01-01T00:00:00.123456789Z " or with a +hh:mm offset.
size_t Rfc3339Length(std::string_view s) {
  if (s.size() < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':') return 0;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18})
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return 0;
  size_t end = s.find(' ');
  return end == std::string_view::npos ? 0 : end;
}

// The members a JSON log record's text and host are read from, in the order they
// are tried (the first non-empty string wins): the text's, then the host's.
constexpr size_t kLongestPath = 3;
struct MemberPath {
  size_t size;
  std::string_view keys[kLongestPath];
};
constexpr MemberPath kPaths[] = {
    {1, {"log"}},
    {1, {"textPayload"}},
    {2, {"jsonPayload", "message"}},
    {1, {"message"}},
    {1, {"msg"}},
    {3, {"resource", "labels", "pod_name"}},
    {3, {"resource", "labels", "instance_id"}},
    {2, {"labels", "compute.googleapis.com/resource_name"}},
    {3, {"resource", "labels", "node_id"}},
    {2, {"kubernetes", "pod_name"}},
};
constexpr size_t kPathCount = sizeof kPaths / sizeof kPaths[0], kTextPaths = 5;
static_assert(kPathCount <= 32, "a record reader's path set is a 32-bit mask");

// By level and byte: the paths whose key at that level starts with the byte (a
// record's key is looked up among a few paths at most, not all of them).
using PathsByFirstByte = std::array<std::array<uint32_t, 256>, kLongestPath>;
constexpr PathsByFirstByte MakePathsByFirstByte() {
  PathsByFirstByte table{};
  for (size_t i = 0; i < kPathCount; ++i)
    for (size_t level = 0; level < kPaths[i].size; ++level)
      if (!kPaths[i].keys[level].empty())
        table[level][static_cast<unsigned char>(kPaths[i].keys[level][0])] |= 1u << i;
  return table;
}
constexpr PathsByFirstByte kPathsByFirstByte = MakePathsByFirstByte();

const json* Find(const json& obj, const MemberPath& path) {
  const json* at = &obj;
  for (size_t k = 0; k < path.size; ++k) {
    if (!at->is_object()) return nullptr;
    auto it = at->find(std::string(path.keys[k]));
    if (it == at->end()) return nullptr;
    at = &*it;
  }
  return at;
}

// The first non-empty string at kPaths[from, to) in a parsed record.
std::string FirstString(const json& obj, size_t from, size_t to) {
  for (size_t i = from; i < to; ++i) {
    const json* v = Find(obj, kPaths[i]);
    if (v && v->is_string() && !v->get<std::string>().empty()) return v->get<std::string>();
  }
  return "";
}

// Bytes a JSON string holds as they are: printable ASCII but the quote and the
// backslash, and DEL (the parser takes it).
constexpr std::array<bool, 256> PlainInString() {
  std::array<bool, 256> plain{};
  for (int c = 0x20; c < 0x80; ++c) plain[c] = c != '"' && c != '\\';
  return plain;
}
constexpr std::array<bool, 256> kPlainInString = PlainInString();

// Past the plain string bytes from d[p]: sixteen at a time with SSE2 (where the
// first byte that is not plain is found exactly), eight at a time without it
// while a word holds no quote, backslash, control or high byte (each test may
// also flag bytes above a flagged one, never miss one), then byte by byte.
size_t PastPlain(const char* d, size_t p, size_t n) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
  for (; p + 16 <= n; p += 16) {
    __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(d + p));
    __m128i flagged = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)),
                                   _mm_cmplt_epi8(x, space));  // signed: control and high bytes both
    if (int mask = _mm_movemask_epi8(flagged))
      return p + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
  }
#endif
  constexpr uint64_t kOnes = 0x0101010101010101ull, kHigh = kOnes * 0x80;
  for (; p + 8 <= n; p += 8) {
    uint64_t x;
    std::memcpy(&x, d + p, 8);
    uint64_t quote8 = x ^ (kOnes * '"'), backslash8 = x ^ (kOnes * '\\');
    uint64_t flagged =
        x | ((x - kOnes * 0x20) & ~x) | ((quote8 - kOnes) & ~quote8) | ((backslash8 - kOnes) & ~backslash8);
    if (flagged & kHigh) break;
  }
  while (p < n && kPlainInString[static_cast<unsigned char>(d[p])]) ++p;
  return p;
}

// A JSON log record read without building a document: docker's json-file lines
// ({"log":"...\n","stream":"stderr","time":"..."}), Cloud Logging's and
// fluent-bit's (resource or kubernetes labels nested in them) are most JSON log
// lines, and the parser spent 20,000 instructions on each.
class RecordReader {
 public:
  enum class Result { kRead, kAskTheParser };

  // Reads object (which starts with '{'), keeping the strings at kPaths. Text
  // the parser might judge otherwise (a surrogate escape, an escaped key, nesting
  // past kMaxDepth, anything that is not JSON) is left to it: kAskTheParser.
  Result Read(std::string_view object) {
    text_ = object;
    pos_ = 0;
    for (auto& kept : kept_) kept = {};
    if (!Object(1, (1u << kPathCount) - 1, 0)) return Result::kAskTheParser;
    Space();
    return pos_ == text_.size() ? Result::kRead : Result::kAskTheParser;
  }
  // The log text as FirstString takes it: the first non-empty string among the
  // text paths (a repeated key: its last value, as the parser keeps it).
  std::string_view Text() const { return FirstOf(0, kTextPaths); }
  std::string_view Host() const { return FirstOf(kTextPaths, kPathCount); }

 private:
  static constexpr int kMaxDepth = 16;  // below kMaxJsonDepth: deeper goes to the parser, which checks it

  std::string_view FirstOf(size_t from, size_t to) const {
    for (size_t i = from; i < to; ++i)
      if (!kept_[i].empty()) return kept_[i];
    return {};
  }
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void Space() {
    while (Peek() == ' ' || Peek() == '\t' || Peek() == '\r' || Peek() == '\n') ++pos_;
  }
  // An object at Peek(). paths: the kPaths that may go on inside it, their first
  // level keys read (none inside an array, or past every path's end).
  bool Object(int depth, uint32_t paths, size_t level) {
    if (depth > kMaxDepth) return false;
    ++pos_;
    Space();
    if (Peek() == '}') return Close();
    for (;;) {
      std::string_view key;
      bool escaped = false;
      if (!String(&key, &escaped) || escaped) return false;
      Space();
      if (Peek() != ':') return false;
      ++pos_;
      Space();
      uint32_t under = Continuing(paths, level, key);
      // A repeated key: the parser keeps its last value.
      for (uint32_t bits = under; bits != 0; bits &= bits - 1) kept_[__builtin_ctz(bits)] = {};
      if (!Member(depth, under, level + 1)) return false;
      Space();
      if (Peek() == '}') return Close();
      if (Peek() != ',') return false;
      ++pos_;
      Space();
    }
  }
  bool Close() {  // the '}' or ']' at Peek()
    ++pos_;
    return true;
  }
  // Of paths, those whose key at level is key.
  static uint32_t Continuing(uint32_t paths, size_t level, std::string_view key) {
    if (key.empty() || level >= kLongestPath) return 0;
    uint32_t out = 0;  // of the paths whose key there starts with key's first byte, those it is
    for (uint32_t bits = paths & kPathsByFirstByte[level][static_cast<unsigned char>(key[0])]; bits != 0;
         bits &= bits - 1) {
      int i = __builtin_ctz(bits);
      if (SameBytes(kPaths[i].keys[level], key)) out |= 1u << i;
    }
    return out;
  }
  // A member's value; paths: the kPaths that lead to it or through it, level keys long.
  bool Member(int depth, uint32_t paths, size_t level) {
    if (Peek() == '{') return Object(depth + 1, paths, level);
    if (Peek() != '"') return Value(depth);
    std::string_view value;
    bool escaped = false;
    if (!String(&value, &escaped)) return false;
    for (uint32_t bits = paths; bits != 0; bits &= bits - 1) {
      int i = __builtin_ctz(bits);
      if (kPaths[i].size == level) kept_[i] = escaped ? Decoded(value, &decoded_[i]) : value;
    }
    return true;
  }
  bool Value(int depth) {
    std::string_view ignored;
    bool escaped = false;
    switch (Peek()) {
      case '{': return Object(depth + 1, 0, 0);
      case '[': return Array(depth + 1);
      case '"': return String(&ignored, &escaped);
      default: return Scalar();
    }
  }
  bool Array(int depth) {
    if (depth > kMaxDepth) return false;
    ++pos_;
    Space();
    if (Peek() == ']') return Close();
    for (;;) {
      if (!Value(depth)) return false;
      Space();
      if (Peek() == ']') return Close();
      if (Peek() != ',') return false;
      ++pos_;
      Space();
    }
  }
  // A string's bytes between its quotes, as written; *escaped when it holds an
  // escape. False for an unknown escape, a surrogate's (\ud83d: the parser
  // pairs them), a control byte or bytes that are no UTF-8 the parser takes.
  bool String(std::string_view* out, bool* escaped) {
    if (Peek() != '"') return false;
    *escaped = false;
    // The place in a local: a char read may alias pos_, which would then be
    // stored and loaded again for every byte.
    const char* d = text_.data();
    const size_t n = text_.size(), start = pos_ + 1;
    for (size_t p = start; p < n; ++p) {
      p = PastPlain(d, p, n);
      if (p == n) break;
      unsigned char c = static_cast<unsigned char>(d[p]);
      if (c == '"') {
        *out = text_.substr(start, p - start);
        pos_ = p + 1;
        return true;
      }
      if (c == '\\') {
        char next = p + 1 < n ? d[p + 1] : '\0';
        uint32_t code = 0;
        if (next == 'u' ? !CodePoint(text_.substr(p + 2), &code) : Unescaped(next) == '\0') return false;
        *escaped = true;
        p += next == 'u' ? 5 : 1;  // to the escape's last byte, which may be a quote
        continue;
      }
      if (c < 0x20) return false;
      if (c >= 0x80) {
        size_t length = Utf8Length(text_.substr(p));
        if (length == 0) return false;
        p += length - 1;
      }
    }
    return false;
  }
  // The byte a one-byte escape stands for ('n' -> newline), '\0' for any other.
  static char Unescaped(char c) {
    switch (c) {
      case '"': return '"';
      case '\\': return '\\';
      case '/': return '/';
      case 'b': return '\b';
      case 'f': return '\f';
      case 'n': return '\n';
      case 'r': return '\r';
      case 't': return '\t';
      default: return '\0';
    }
  }
  // raw (a string String read) with its escapes replaced, in *buffer.
  // The bytes between escapes are appended a run at a time.
  static std::string_view Decoded(std::string_view raw, std::string* buffer) {
    buffer->clear();
    for (size_t i = 0; i < raw.size();) {
      size_t escape = std::min(raw.find('\\', i), raw.size());
      buffer->append(raw.data() + i, escape - i);
      if (escape == raw.size()) break;
      if (raw[escape + 1] != 'u') {
        *buffer += Unescaped(raw[escape + 1]);
        i = escape + 2;
      } else {
        uint32_t code = 0;
        CodePoint(raw.substr(escape + 2), &code);  // String checked it
        AppendUtf8(code, buffer);
        i = escape + 6;
      }
    }
    return *buffer;
  }
  // The code point of the four hex digits hex starts with; false when they are
  // not four, or it is a surrogate (the parser checks their pairs).
  static bool CodePoint(std::string_view hex, uint32_t* code) {
    if (hex.size() < 4) return false;
    *code = 0;
    for (char h : hex.substr(0, 4)) {
      int digit = h >= '0' && h <= '9'   ? h - '0'
                  : h >= 'a' && h <= 'f' ? h - 'a' + 10
                  : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                         : -1;
      if (digit < 0) return false;
      *code = *code * 16 + static_cast<uint32_t>(digit);
    }
    return *code < 0xD800 || *code > 0xDFFF;
  }
  static void AppendUtf8(uint32_t code, std::string* out) {  // code < 0x10000
    if (code < 0x80) {
      *out += static_cast<char>(code);
    } else if (code < 0x800) {
      *out += static_cast<char>(0xC0 | (code >> 6));
      *out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      *out += static_cast<char>(0xE0 | (code >> 12));
      *out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      *out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }
  // The length of the UTF-8 sequence text starts with (a byte past ASCII) as the
  // parser's lexer takes it (RFC 3629: no overlong form, surrogate or code point
  // past U+10FFFF); 0 when there is none.
  static size_t Utf8Length(std::string_view text) {
    auto in = [&text](size_t i, unsigned lo, unsigned hi) {
      return i < text.size() && static_cast<unsigned char>(text[i]) >= lo &&
             static_cast<unsigned char>(text[i]) <= hi;
    };
    unsigned char c = static_cast<unsigned char>(text[0]);
    if (c >= 0xC2 && c <= 0xDF) return in(1, 0x80, 0xBF) ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
      unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
      return in(1, lo, hi) && in(2, 0x80, 0xBF) ? 3 : 0;
    }
    if (c >= 0xF0 && c <= 0xF4) {
      unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
      return in(1, lo, hi) && in(2, 0x80, 0xBF) && in(3, 0x80, 0xBF) ? 4 : 0;
    }
    return 0;
  }
  // A number, true, false or null, by JSON's grammar. A number with an exponent
  // or of more than 20 characters is the parser's to judge: it refuses one a
  // double cannot hold (1e400), and so must this reader.
  bool Scalar() {
    for (std::string_view word : {"true", "false", "null"}) {
      if (text_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        return true;
      }
    }
    constexpr size_t kPlainNumber = 20;
    size_t start = pos_;
    if (Peek() == '-') ++pos_;
    if (Peek() == '0') ++pos_;
    else if (!Digits()) return false;
    if (Peek() == '.') {
      ++pos_;
      if (!Digits()) return false;
    }
    return Peek() != 'e' && Peek() != 'E' && pos_ - start <= kPlainNumber;
  }
  bool Digits() {
    size_t start = pos_;
    while (Peek() >= '0' && Peek() <= '9') ++pos_;
    return pos_ > start;
  }
  std::string_view text_;
  size_t pos_ = 0;
  std::string_view kept_[kPathCount];  // strings at kPaths: views into text_ or decoded_
  std::string decoded_[kPathCount];
};

// The line from its '{' on (spaces and tabs before it skipped), or empty.
std::string_view ObjectIn(std::string_view line) {
  size_t start = line.find_first_not_of(" \t");
  return start == std::string_view::npos || line[start] != '{' ? std::string_view() : line.substr(start);
}

// The text field's lines into *texts (a payload may hold several); false when empty.
bool SplitText(std::string_view text, std::vector<std::string>* texts) {
  if (text.empty()) return false;
  size_t count = 0;
  // Into the strings of the last record: their room is kept.
  auto put = [texts, &count](std::string_view piece) {
    if (count < texts->size()) (*texts)[count].assign(piece.data(), piece.size());
    else texts->emplace_back(piece);
    ++count;
  };
  size_t from = 0;
  while (from <= text.size()) {
    size_t nl = text.find('\n', from);
    std::string_view piece =
        text.substr(from, nl == std::string_view::npos ? std::string_view::npos : nl - from);
    if (nl == std::string_view::npos) {
      if (!piece.empty() || count == 0) put(piece);
      break;
    }
    put(piece);
    from = nl + 1;
  }
  texts->resize(count);
  return true;
}

}  // namespace

bool UnwrapCri(std::string_view line, std::string* partial, std::string* text, bool* complete) {
  size_t time = Rfc3339Length(line);
  if (time == 0) return false;
  std::string_view rest = line.substr(time + 1);
  if (!(rest.substr(0, 7) == "stdout " || rest.substr(0, 7) == "stderr ")) return false;
  rest.remove_prefix(7);
  if (rest.size() < 2 || (rest[0] != 'F' && rest[0] != 'P') || rest[1] != ' ') return false;
  bool is_partial = rest[0] == 'P';
  rest.remove_prefix(2);
  if (is_partial) {
    if (!rest.empty() && rest.back() == '\r')
      rest.remove_suffix(1);  // a CRLF file: the line end is no content
    partial->append(rest);
    *complete = false;
    return true;
  }
  *text = *partial + std::string(rest);
  partial->clear();
  *complete = true;
  return true;
}

bool UnwrapJson(std::string_view line, std::vector<std::string>* texts, std::string* host) {
  std::string_view object = ObjectIn(line);
  if (object.empty()) return false;
  thread_local RecordReader record;  // its decoded strings keep their room from line to line
  if (record.Read(object) != RecordReader::Result::kRead) return UnwrapJsonByParser(line, texts, host);
  if (!SplitText(record.Text(), texts)) return false;
  host->assign(record.Host());
  return true;
}

bool UnwrapJsonByParser(std::string_view line, std::vector<std::string>* texts, std::string* host) {
  std::string_view object = ObjectIn(line);
  if (object.empty()) return false;
  if (!JsonDepthWithin(object)) return false;  // read as the text it is
  json doc = json::parse(object.begin(), object.end(), nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return false;
  std::string text = FirstString(doc, 0, kTextPaths);
  if (text.empty()) return false;
  *host = FirstString(doc, kTextPaths, kPathCount);
  return SplitText(text, texts);
}

}  // namespace oomlens
