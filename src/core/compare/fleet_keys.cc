// The keys a fleet groups and counts by: an incident's message with its numbers
// masked, and timestamps without a year dated near their job's or the fleet's.
#include "core/compare/fleet_keys.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <vector>

#include "core/input/line_cleaner.h"
#include "core/model/ascii.h"
#include "core/model/from_chars.h"

namespace oomlens {
namespace {

constexpr size_t kMaxMessageBytes = 160;

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

// "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED ..." -> "RESOURCE_EXHAUSTED ...": the
// class a wrapper raised differs from job to job for one failure.
std::string_view WithoutExceptionClass(std::string_view text) {
  for (;;) {
    size_t colon = text.find(": ");
    if (colon == std::string_view::npos || colon == 0) return text;
    std::string_view name = text.substr(0, colon);
    bool is_class =
        std::all_of(name.begin(), name.end(), IsNameChar) &&
        (name.find("Error") != std::string_view::npos || name.find("Exception") != std::string_view::npos);
    if (!is_class) return text;
    text.remove_prefix(colon + 2);
  }
}

// The length of the number at text[i] ("29.49", "1,024") with the size unit that
// follows it ("G", " GiB", "B"): the unit a log prints changes with the number.
size_t NumberLength(std::string_view text, size_t i) {
  size_t end = i;
  while (end < text.size() && (IsDigit(text[end]) || ((text[end] == '.' || text[end] == ',') &&
                                                      end + 1 < text.size() && IsDigit(text[end + 1])))) {
    ++end;
  }
  size_t unit = end < text.size() && text[end] == ' ' ? end + 1 : end;
  for (std::string_view u : {"KiB", "MiB", "GiB", "TiB", "PiB", "KB", "kB", "MB", "GB", "TB", "PB", "B", "K",
                             "k", "M", "G", "T", "P"}) {
    if (text.substr(unit, u.size()) != u) continue;
    size_t after = unit + u.size();
    if (after < text.size() && (IsNameChar(text[after]) && text[after] != '.')) continue;
    return after - i;
  }
  return end - i;
}

// Numbers (with their size units) masked, runs of blanks made one space, cut at
// max bytes (not inside a character).
std::string Masked(std::string_view text, size_t max) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    bool blank = c == ' ' || c == '\t' || c == '\r' || c == '\n';
    if (IsDigit(c)) {
      out += '#';
      i += NumberLength(text, i) - 1;
    } else if (blank) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
    if (out.size() >= max) break;
  }
  if (out.size() >= max) {  // cut: drop a character the cut split
    out.resize(max);
    size_t lead = out.size();
    while (lead > 0 && (static_cast<unsigned char>(out[lead - 1]) & 0xC0) == 0x80) --lead;
    if (lead > 0 && static_cast<unsigned char>(out[lead - 1]) >= 0xC0) {
      unsigned char c = static_cast<unsigned char>(out[lead - 1]);
      size_t length = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
      if (out.size() - (lead - 1) < length) out.resize(lead - 1);
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}

}  // namespace

std::string MaskedMessage(const Incident& incident) {
  LineCleaner cleaner;
  std::string joined;
  for (const std::string& line : incident.excerpt) {
    std::string_view message = WithoutExceptionClass(cleaner.Clean(line).message);
    if (!joined.empty()) joined += ' ';
    joined.append(message.data(), message.size());
    if (joined.size() >= 2 * kMaxMessageBytes) break;
  }
  return Masked(joined, kMaxMessageBytes);
}

namespace {

std::optional<int64_t> Field(const std::string& s, size_t at, size_t width) {
  return s.size() >= at + width ? ParseInt64(std::string_view(s).substr(at, width)) : std::nullopt;
}

// The day number of a full ISO 8601 timestamp ("YYYY-MM-DD..."); nullopt for others.
std::optional<int64_t> DayOf(const std::string& iso) {
  std::optional<int64_t> year = Field(iso, 0, 4), month = Field(iso, 5, 2), day = Field(iso, 8, 2);
  if (!year || !month || !day) return std::nullopt;
  return DaysFromCivil(*year, *month, *day);
}

std::string Median(std::vector<std::string> values) {
  std::sort(values.begin(), values.end());
  return values[(values.size() - 1) / 2];
}

// The median of the jobs' references when two or more give one and three in four
// lie within half a year of it; "" otherwise (one source, or sources that disagree).
std::string FleetReference(const std::map<int, std::string>& by_input) {
  if (by_input.size() < 2) return "";
  std::vector<std::string> references;
  for (const auto& [input, reference] : by_input) references.push_back(reference);
  std::string median = Median(references);
  std::optional<int64_t> center = DayOf(median);
  size_t agree = 0;
  for (const std::string& r : references) {
    std::optional<int64_t> day = DayOf(r);
    agree += center && day && std::llabs(*day - *center) <= 183;
  }
  return agree * 4 >= references.size() * 3 ? median : "";
}

}  // namespace

YearGuess::YearGuess(const Report& merged) {
  std::map<int, std::vector<std::string>> full;  // per job, the full timestamps of incidents seen in it
  for (const Incident& i : merged.incidents)
    for (const std::string* time : {&i.seen.first_time, &i.seen.last_time})
      if (DayOf(*time))
        for (int input : i.seen.inputs) full[input].push_back(*time);
  for (auto& [input, times] : full) by_input_[input] = Median(std::move(times));
  fleet_ = FleetReference(by_input_);
}

std::string YearGuess::Dated(const std::string& text, int input) const {
  // text "--MM-DD...", the reference "YYYY-MM-DD..." (ISO 8601 as the report writes them).
  auto own = by_input_.find(input);
  const std::string& reference = own != by_input_.end() ? own->second : fleet_;
  std::optional<int64_t> month = Field(text, 2, 2), day = Field(text, 5, 2);
  std::optional<int64_t> year = Field(reference, 0, 4), anchor_day = DayOf(reference);
  if (text.compare(0, 2, "--") != 0 || !month || !day || !year || !anchor_day) return text;
  int64_t anchor = *anchor_day;
  int64_t best = *year;
  for (int64_t y : {*year - 1, *year + 1}) {
    if (std::llabs(DaysFromCivil(y, *month, *day) - anchor) <
        std::llabs(DaysFromCivil(best, *month, *day) - anchor))
      best = y;
  }
  return std::to_string(best) + text.substr(1);
}

}  // namespace oomlens
