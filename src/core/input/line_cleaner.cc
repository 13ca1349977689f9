#include "core/input/line_cleaner.h"

#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "core/model/ascii.h"
#include "core/model/from_chars.h"

namespace oomlens {
namespace {

// What a prefix pattern's single capture group holds.
enum class Field { kNone, kHost, kRank, kLevel, kTimestamp, kLevelAndTimestamp, kPaste };

struct PrefixPattern {
  const char* pattern;  // anchored at the start of the remaining text
  Field field;
};

// Tried in order, repeatedly, until none matches at the start of the text.
constexpr PrefixPattern kPrefixes[] = {
    // glog/absl: "E1130 12:00:00.123456  1234 file.cc:12] ", new absl "F0000 00:00:1717.89 ..."
    {R"(([IWEF])(\d{4} \d\d:\d\d:\d+(?:\.\d+)?)\s+\d+\s+[^\s\]]+:\d+\]\s?)", Field::kLevelAndTimestamp},
    // ISO / "YYYY-MM-DD HH:MM:SS[.,]f" timestamps, optionally bracketed, optionally ':'
    {R"(\[?(\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?)\]?:?\s+)", Field::kTimestamp},
    // dmesg: "[12345.678901] "
    {R"(\[\s*(\d+\.\d+)\]\s?)", Field::kTimestamp},
    // TensorFlow after a timestamp: "E tensorflow/compiler/xla/util.cc:88] "
    {R"(([IWEF])\s+(?:\d+\s+)?[^\s\]]+:\d+\]\s?)", Field::kLevel},
    // Python logging: "- name - ERROR - ", "ERROR:root:", vLLM "INFO 03-21 20:15:44 [file.py:33] "
    {R"(-?\s*[\w.]+ - (DEBUG|INFO|WARNING|ERROR|CRITICAL) - )", Field::kLevel},
    {R"((DEBUG|INFO|WARNING|ERROR|CRITICAL):[\w.]+:)", Field::kLevel},
    {R"((DEBUG|INFO|WARNING|ERROR|CRITICAL)\s+\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \[[^\]]+\]\s)",
     Field::kLevel},
    {R"(\[?(DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)\]?:?\s+)", Field::kLevel},
    // Process tags.
    {R"(\[rank(\d+)\]:?\s?)", Field::kRank},
    {R"(\(([\w.-]+ pid=\d+)(?:, ip=[\d.]+)?\)\s?)", Field::kHost},
    {R"(\[(?:pod/)?([A-Za-z][\w.-]*)(?:/[\w.-]+)?\]\s?)", Field::kHost},
    {R"(([A-Za-z][\w.]*[-_]\d+)\s*[:|]\s)", Field::kHost},
    // docker compose: "service-name   | message"
    {R"(([A-Za-z][\w.-]*)\s+\|\s)", Field::kHost},
    // CI log markers: GitHub Actions "##[group]", "##[error]" ...
    {R"(##\[(?:group|endgroup|error|warning|notice|debug|command|section)\]\s?)", Field::kNone},
    // Paste wrappers: quotes, bullets, comments, code fences and backticks.
    {R"(>\s?)", Field::kPaste},
    {R"([-*+]\s+)", Field::kPaste},
    {R"(#+\s*)", Field::kPaste},
    {R"(```\w*\s*)", Field::kPaste},
    {R"(`)", Field::kPaste},
};

constexpr int kMaxPrefixes = 12;  // bounds the loop on adversarial lines

}  // namespace

// Compiled once per process and shared: RE2 objects are safe to use from any thread.
// The set tells in one DFA pass which prefixes can match at the start of a text,
// so only those run (and capture); most lines match none.
struct LineCleaner::Patterns {
  std::vector<std::unique_ptr<RE2>> res;
  std::unique_ptr<RE2::Set> any;
  Patterns() {
    RE2::Options options(RE2::Latin1);
    options.set_log_errors(false);
    any = std::make_unique<RE2::Set>(options, RE2::ANCHOR_START);
    for (const auto& p : kPrefixes) {
      res.push_back(std::make_unique<RE2>(p.pattern, options));
      if (any && any->Add(p.pattern, nullptr) < 0) any.reset();
    }
    if (any && !any->Compile()) any.reset();  // then every pattern is tried, as before
  }
  static const Patterns& Get() {
    static const Patterns* patterns = new Patterns();  // never destroyed: used until exit
    return *patterns;
  }
};

namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'; }  // RE2's \s
bool IsWordByte(char c) {                                                                      // RE2's \w
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || IsDigit(c) || c == '_';
}

}  // namespace

// kPrefixes[0] (glog) read by hand: it starts most lines of TPU logs, and RE2
// needs its slow capture engine for it.
namespace {

// "2026-11-30T12:00:00Z", "[2026-11-30 12:00:00,123]": a timestamp that says its year.
bool NamesAYear(std::string_view timestamp) {
  if (!timestamp.empty() && timestamp.front() == '[') timestamp.remove_prefix(1);
  return timestamp.size() >= 5 &&
         std::all_of(timestamp.begin(), timestamp.begin() + 4, [](char c) { return c >= '0' && c <= '9'; }) &&
         timestamp[4] == '-';
}

// An inner prefix's timestamp replaces an outer one, except that a yearless one
// (glog's "1130 12:00:00") never replaces one with a year (kubectl --timestamps,
// RFC 3339): the year is what dates the line (newcomer review: "--11-30" buckets).
void KeepTimestamp(std::string_view found, std::string* kept) {
  if (kept->empty() || NamesAYear(found) || !NamesAYear(*kept)) kept->assign(found.data(), found.size());
}

}  // namespace

size_t GlogPrefix(std::string_view t, std::string_view* level, std::string_view* timestamp) {
  const char* s = t.data();
  const size_t n = t.size();
  // "Lmmdd hh:mm:s": the fixed places first, tested without a loop (most lines fail at once).
  if (n < 13 || (s[0] != 'I' && s[0] != 'W' && s[0] != 'E' && s[0] != 'F')) return 0;
  if (!(IsDigit(s[1]) && IsDigit(s[2]) && IsDigit(s[3]) && IsDigit(s[4]) && s[5] == ' ' && IsDigit(s[6]) &&
        IsDigit(s[7]) && s[8] == ':' && IsDigit(s[9]) && IsDigit(s[10]) && s[11] == ':' && IsDigit(s[12])))
    return 0;
  size_t i = 13;
  while (i < n && IsDigit(s[i])) ++i;
  if (i + 1 < n && s[i] == '.' && IsDigit(s[i + 1]))
    for (i += 2; i < n && IsDigit(s[i]);) ++i;
  size_t timestamp_end = i;
  size_t from = i;  // \s+\d+\s+ : spaces, the thread, spaces
  while (i < n && IsSpace(s[i])) ++i;
  if (i == from) return 0;
  for (from = i; i < n && IsDigit(s[i]);) ++i;
  if (i == from) return 0;
  for (from = i; i < n && IsSpace(s[i]);) ++i;
  if (i == from) return 0;
  size_t file = i;  // [^\s\]]+:\d+\] : the token up to ']' must end with ":digits"
  while (i < n && !IsSpace(t[i]) && t[i] != ']') ++i;
  if (i == n || t[i] != ']') return 0;
  size_t k = i;
  while (k > file && IsDigit(t[k - 1])) --k;
  if (k == i || k - 1 <= file || t[k - 1] != ':') return 0;
  ++i;
  if (i < n && IsSpace(t[i])) ++i;
  *level = t.substr(0, 1);
  *timestamp = t.substr(1, timestamp_end - 1);
  return i;
}

size_t IsoTimestampPrefix(std::string_view t, std::string_view* timestamp) {
  size_t n = t.size(), i = 0;
  auto digits = [&](size_t exactly) {
    size_t start = i;
    while (i < n && i - start < exactly && IsDigit(t[i])) ++i;
    return i - start == exactly;
  };
  auto byte = [&](char c) { return i < n && t[i] == c ? (++i, true) : false; };
  byte('[');
  size_t start = i;
  if (!(digits(4) && byte('-') && digits(2) && byte('-') && digits(2) && (byte('T') || byte(' ')) &&
        digits(2) && byte(':') && digits(2) && byte(':') && digits(2)))
    return 0;
  if (i + 1 < n && (t[i] == '.' || t[i] == ',') && IsDigit(t[i + 1])) {  // (?:[.,]\d+)?
    ++i;
    while (i < n && IsDigit(t[i])) ++i;
  }
  if (!byte('Z') && i < n && (t[i] == '+' || t[i] == '-')) {  // (?:Z|[+-]\d\d:?\d\d)?
    size_t zone = i++;
    bool ok = digits(2);
    byte(':');
    if (!(ok && digits(2))) i = zone;  // not a zone: what follows must still fit below
  }
  size_t end = i;
  byte(']');  // \]? whether or not a '[' opened it, as the regex
  byte(':');
  size_t spaces = i;
  while (i < n && IsSpace(t[i])) ++i;
  if (i == spaces) return 0;
  *timestamp = t.substr(start, end - start);
  return i;
}

size_t DashLoggingPrefix(std::string_view t, std::string_view* level) {
  size_t n = t.size(), i = 0;
  if (n == 0 || t[0] != '-') return 0;
  ++i;
  while (i < n && IsSpace(t[i])) ++i;
  size_t name = i;
  while (i < n && (IsWordByte(t[i]) || t[i] == '.')) ++i;
  if (i == name || t.substr(i, 3) != " - ") return 0;
  i += 3;
  for (std::string_view word : {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}) {
    if (t.substr(i, word.size()) != word || t.substr(i + word.size(), 3) != " - ") continue;
    *level = t.substr(i, word.size());
    return i + word.size() + 3;
  }
  return 0;
}

// What kPrefixes allow after a leading word, checked by hand: most message
// lines start with a word that no prefix can follow, and skip the regexes.
// Asked after GlogPrefix: glog's kPrefixes[0] is left out (a line cut inside
// its prefix, as a killed job's last line often is, needs no regex).
// Keep in step with kPrefixes (tested against them: MayStartWithPrefix).
bool MayStartWithPrefix(std::string_view t) {
  if (t.empty()) return false;
  char first = t[0];
  bool letter = (first >= 'a' && first <= 'z') || (first >= 'A' && first <= 'Z');
  if (!letter && !IsDigit(first)) return true;         // lines starting with a word are sorted out here
  static const std::array<bool, 256> kWordByte = [] {  // [\w.-]: one load a byte (the word of every line)
    std::array<bool, 256> table{};
    for (int c = 0; c < 256; ++c)
      table[c] = IsAlnum(static_cast<char>(c)) || c == '_' || c == '.' || c == '-';
    return table;
  }();
  size_t w = 0;
  while (w < t.size() && kWordByte[static_cast<unsigned char>(t[w])]) ++w;
  std::string_view rest = t.substr(w);
  bool python_logging = rest.size() >= 3 && rest[0] == ' ' && rest[1] == '-' && rest[2] == ' ';  // " - "
  if (!letter) {  // a number (a wrapped line's rest, often): an ISO date or Python logging's name
    bool iso_date = t.size() > 4 && IsDigit(t[1]) && IsDigit(t[2]) && IsDigit(t[3]) && t[4] == '-';
    return iso_date || python_logging;
  }
  size_t gap = 0;
  while (gap < rest.size() && IsSpace(rest[gap])) ++gap;
  char after = gap < rest.size() ? rest[gap] : '\0';
  bool tf = (first == 'I' || first == 'W' || first == 'E' || first == 'F') && t.size() > 1 && IsSpace(t[1]);
  bool level = false;
  if (first == 'D' || first == 'I' || first == 'W' || first == 'E' || first == 'C' || first == 'F')
    for (std::string_view word : {"DEBUG", "INFO", "WARN", "ERROR", "CRITICAL", "FATAL"})
      level = level || (t.size() >= word.size() && SameBytes(t.data(), word.data(), word.size()));
  bool host_tag = IsDigit(t[w - 1]) && (after == ':' || after == '|');
  bool compose = gap > 0 && after == '|';
  return tf || level || python_logging || host_tag || compose;
}

bool StartsWithPrefix(std::string_view text) {
  std::vector<int> hits;
  const auto& patterns = LineCleaner::Patterns::Get();
  if (patterns.any) return patterns.any->Match(re2::StringPiece(text), &hits);
  for (const auto& re : patterns.res)
    if (re->Match(re2::StringPiece(text), 0, text.size(), RE2::ANCHOR_START, nullptr, 0)) return true;
  return false;
}

bool StartsWithLogPrefix(std::string_view text) {
  std::string_view level, timestamp;
  if (GlogPrefix(text, &level, &timestamp) > 0 || IsoTimestampPrefix(text, &timestamp) > 0 ||
      DashLoggingPrefix(text, &level) > 0)
    return true;  // kPrefixes[0], [1] and [4], read by hand
  if (!MayStartWithPrefix(text)) return false;
  const auto& patterns = LineCleaner::Patterns::Get();
  if (patterns.any) {  // one pass for every prefix: most lines that get here match none
    std::vector<int> hits;
    if (!patterns.any->Match(re2::StringPiece(text), &hits)) return false;
    return std::any_of(hits.begin(), hits.end(),
                       [](int i) { return kPrefixes[static_cast<size_t>(i)].field != Field::kPaste; });
  }
  for (size_t i = 0; i < patterns.res.size(); ++i) {
    if (kPrefixes[i].field == Field::kPaste) continue;
    if (patterns.res[i]->Match(re2::StringPiece(text), 0, text.size(), RE2::ANCHOR_START, nullptr, 0))
      return true;
  }
  return false;
}

LineCleaner::LineCleaner() = default;
LineCleaner::~LineCleaner() = default;

std::string StripAnsi(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\x1b') {
      out += text[i];
      continue;
    }
    if (i + 1 >= text.size()) break;
    char kind = text[i + 1];
    size_t j = i + 2;
    if (kind == '[') {  // CSI: parameters then a final byte in 0x40..0x7e
      while (j < text.size() && !(text[j] >= 0x40 && text[j] <= 0x7e)) ++j;
    } else if (kind == ']') {  // OSC: ends with BEL or ESC '\'
      while (j < text.size() && text[j] != '\a' && !(text[j] == '\x1b' && j + 1 < text.size())) ++j;
      if (j < text.size() && text[j] == '\x1b') ++j;
    } else {
      j = i + 1;  // two-byte escape
    }
    i = j;
  }
  return out;
}

const CleanLine& LineCleaner::Clean(std::string_view raw, std::string_view host_when_none) {
  while (!raw.empty() && (raw.back() == '\r' || raw.back() == '\n')) raw.remove_suffix(1);
  const void* cr =
      raw.empty() ? nullptr : ::memrchr(raw.data(), '\r', raw.size());  // a progress-bar overwrite
  if (cr) raw.remove_prefix(static_cast<size_t>(static_cast<const char*>(cr) - raw.data()) + 1);
  if (raw.find('\x1b') != std::string_view::npos) {
    scratch_ = StripAnsi(raw);
    raw = scratch_;
  }
  result_.display = raw;
  for (std::string* field :
       {&result_.context.host, &result_.context.rank, &result_.context.level, &result_.context.timestamp})
    field->clear();  // keeps their room: a line is cleaned for every candidate
  std::string_view text = raw;
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  std::vector<int>& hits = hits_;
  for (int round = 0; round < kMaxPrefixes && !text.empty(); ++round) {
    std::string_view level, timestamp;
    if (size_t glog = GlogPrefix(text, &level, &timestamp)) {
      result_.context.level.assign(level);
      KeepTimestamp(timestamp, &result_.context.timestamp);
      text.remove_prefix(glog);
      while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
      continue;
    }
    if (size_t iso = IsoTimestampPrefix(text, &timestamp)) {  // kPrefixes[1]
      KeepTimestamp(timestamp, &result_.context.timestamp);
      text.remove_prefix(iso);
      while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
      continue;
    }
    if (size_t dash = DashLoggingPrefix(text, &level)) {  // kPrefixes[4]: no earlier one starts with '-'
      result_.context.level.assign(level);
      text.remove_prefix(dash);
      while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
      continue;
    }
    if (!MayStartWithPrefix(text)) break;
    const Patterns& patterns = Patterns::Get();  // compiled when a line first may need them
    bool matched = false;
    hits.clear();
    if (patterns.any) {
      if (!patterns.any->Match(re2::StringPiece(text), &hits)) break;
      std::sort(hits.begin(), hits.end());  // the table's order decides, as without the set
    } else {
      for (size_t i = 0; i < patterns.res.size(); ++i) hits.push_back(static_cast<int>(i));
    }
    for (int i : hits) {
      re2::StringPiece input(text);
      re2::StringPiece capture, second;
      const RE2& re = *patterns.res[i];
      int groups = re.NumberOfCapturingGroups();
      bool ok = groups >= 2   ? RE2::Consume(&input, re, &capture, &second)
                : groups == 1 ? RE2::Consume(&input, re, &capture)
                              : RE2::Consume(&input, re);
      if (!ok || input.size() == text.size()) continue;
      std::string value(capture.data(), capture.size());
      switch (kPrefixes[i].field) {
        case Field::kHost: result_.context.host = value; break;
        case Field::kRank: result_.context.rank = value; break;
        case Field::kLevel: result_.context.level = value; break;
        case Field::kTimestamp: KeepTimestamp(value, &result_.context.timestamp); break;
        case Field::kLevelAndTimestamp:
          result_.context.level = value;
          KeepTimestamp(std::string_view(second.data(), second.size()), &result_.context.timestamp);
          break;
        case Field::kNone:
        case Field::kPaste: break;
      }
      text = std::string_view(input.data(), input.size());
      while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
      matched = true;
      break;
    }
    if (!matched) break;
  }
  while (!text.empty() && (text.back() == '`' || text.back() == ' ' || text.back() == '\t'))
    text.remove_suffix(1);
  result_.message = text;
  if (result_.context.host.empty()) result_.context.host.assign(host_when_none);
  return result_;
}

}  // namespace oomlens

namespace oomlens {

namespace {

// The fields of a timestamp: year 0 when it names none (glog); a month of 0 when
// the seconds count from the epoch (absl).
struct TimestampFields {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0;
  double second = 0;
};

// "1130 12:00:00.123456" (glog: MMDD), "0000 00:00:1717141650.89" (absl: seconds
// since the epoch in the seconds field), "2026-11-30 09:14:11,402" or
// "2026-11-30T09:14:11.402Z" (ISO).
std::optional<TimestampFields> ReadTimestamp(std::string_view ts) {
  size_t i = 0;
  auto number = [&](size_t width, int* out) {  // up to width digits, at least one
    size_t start = i;
    for (*out = 0; i < ts.size() && i - start < width && IsDigit(ts[i]); ++i)
      *out = *out * 10 + (ts[i] - '0');
    return i > start;
  };
  auto one_of = [&](std::string_view chars) {
    return i < ts.size() && chars.find(ts[i]) != std::string_view::npos ? (++i, true) : false;
  };
  auto seconds = [&](double* out) {  // "11", "11.402", "11,402", "1717141650.89"
    char buf[40];
    size_t len = 0;
    for (; i < ts.size() && len + 1 < sizeof buf; ++i) {
      char c = ts[i];
      if (IsDigit(c)) buf[len++] = c;
      else if ((c == '.' || c == ',') && len > 0 && std::memchr(buf, '.', len) == nullptr) buf[len++] = '.';
      else break;
    }
    return len > 0 && DoubleFromChars(buf, buf + len, out) == std::errc();
  };
  TimestampFields t;
  bool iso = number(4, &t.year) && one_of("-") && number(2, &t.month) && one_of("-") && number(2, &t.day) &&
             one_of(" T") && number(2, &t.hour) && one_of(":") && number(2, &t.minute) && one_of(":") &&
             seconds(&t.second);
  if (!iso) {  // glog: "1130 12:00:00.123456" (MMDD), absl: "0000 00:00:1717141650.89"
    i = 0;
    t = TimestampFields{};
    bool glog = number(2, &t.month) && number(2, &t.day) && one_of(" ") && number(2, &t.hour) &&
                one_of(":") && number(2, &t.minute) && one_of(":") && seconds(&t.second);
    if (!glog) return std::nullopt;
  }
  if (t.month > 12 || t.day > 31 || t.hour > 23 || t.minute > 59) return std::nullopt;
  return t;
}

// Civil date of a count of days since 1970-01-01 (Howard Hinnant's algorithm).
void CivilFromDays(int64_t z, int* year, int* month, int* day) {
  z += 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  *day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  *month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  *year = static_cast<int>(yoe + era * 400 + (*month <= 2));
}

}  // namespace

// Days count from the start of the year, which is enough to measure spans within a log.
std::optional<double> TimestampSeconds(std::string_view ts) {
  static const int kDaysBefore[] = {0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
  std::optional<TimestampFields> t = ReadTimestamp(ts);
  if (!t) return std::nullopt;
  double days = (t->month > 0 ? kDaysBefore[t->month] : 0) + t->day;
  return ((days * 24 + t->hour) * 60 + t->minute) * 60 + t->second;
}

std::string TimestampText(std::string_view ts) {
  std::optional<TimestampFields> t = ReadTimestamp(ts);
  if (!t) return "";
  if (t->month == 0) {  // absl: seconds since the epoch
    if (!(t->second >= 0 && t->second < 1e11)) return "";
    auto epoch = static_cast<int64_t>(t->second);
    CivilFromDays(epoch / 86400, &t->year, &t->month, &t->day);
    t->hour = static_cast<int>(epoch % 86400 / 3600);
    t->minute = static_cast<int>(epoch % 3600 / 60);
    t->second = static_cast<double>(epoch % 60);
  }
  if (t->day == 0) return "";
  char out[40];
  int second = static_cast<int>(t->second);
  if (t->year > 0) {
    std::snprintf(out, sizeof out, "%04d-%02d-%02dT%02d:%02d:%02d", t->year, t->month, t->day, t->hour,
                  t->minute, second);
  } else {
    std::snprintf(out, sizeof out, "--%02d-%02dT%02d:%02d:%02d", t->month, t->day, t->hour, t->minute,
                  second);
  }
  return out;
}

}  // namespace oomlens
