#include "core/run/report_input.h"

#include <nlohmann/json.hpp>

#include "core/input/decompress.h"
#include "core/model/json_depth.h"
#include "oomlens/render.h"
#include "oomlens/scanner.h"

namespace oomlens {
namespace {

constexpr size_t kLook = 64 * 1024;

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// Reads on from source while text holds only blanks from `from` on (and the
// source has more): the offset of the first byte that is not blank, or npos at the end.
size_t NextNonBlank(ByteSource* source, size_t from, std::string* text, std::string* error) {
  for (;;) {
    for (size_t i = from; i < text->size(); ++i)
      if (!IsSpace((*text)[i])) return i;
    from = text->size();
    if (text->size() > kMaxReportBytes || !ReadUpTo(source, text->size() + kLook, text, error) ||
        text->size() == from)
      return std::string::npos;
  }
}

// Whether the input is one JSON object rather than a log, and reads it whole into
// *text if so. A log of JSON lines is told by the value that follows its first; its
// first line is all that is read. Sets *too_large when an object that names a
// schema version is over kMaxReportBytes.
bool IsOneJsonObject(ByteSource* source, std::string* text, bool* too_large, std::string* error) {
  size_t start = NextNonBlank(source, 0, text, error);
  if (start == std::string::npos || (*text)[start] != '{') return false;
  JsonBrackets brackets;
  size_t fed = start, end = std::string::npos;
  while (end == std::string::npos) {
    size_t at = brackets.Feed(std::string_view(*text).substr(fed));
    if (at != std::string::npos) end = fed + at;
    fed = text->size();
    if (end != std::string::npos) break;
    if (text->size() > kMaxReportBytes) {
      *too_large = text->find("\"schema_version\"") != std::string::npos;
      return *too_large;
    }
    if (!ReadUpTo(source, text->size() + kLook, text, error) || text->size() == fed)
      return false;  // never closed
  }
  return NextNonBlank(source, end, text, error) == std::string::npos;  // else more follows: JSON lines
}

// A JSON object that names a schema version claims to be a report (valid or not).
// Parsed without keeping the document (a report's would take ten times its text).
bool NamesSchemaVersion(const std::string& text) {
  if (!JsonDepthWithin(text)) return true;  // the report reader says what is wrong
  bool named = false;
  nlohmann::json::parser_callback_t look = [&named](int depth, nlohmann::json::parse_event_t event,
                                                    nlohmann::json& parsed) {
    if (depth == 1 && event == nlohmann::json::parse_event_t::key && parsed == "schema_version") named = true;
    return depth == 0;  // nothing below the top is kept
  };
  auto doc = nlohmann::json::parse(text, look, /*allow_exceptions=*/false);
  return doc.is_object() && named;
}

std::string TooLarge() {
  return "larger than " + std::to_string(kMaxReportBytes >> 20) +
         " MiB; a report that large is not read back (write fewer incidents: --max-incidents)";
}

// The whole of a (decompressed) report, or false with *error.
bool ReadReportText(ByteSource* source, std::string* text, std::string* error) {
  if (!ReadUpTo(source, kMaxReportBytes + 1, text, error)) return false;
  if (text->size() > kMaxReportBytes) {
    *error = TooLarge();
    return false;
  }
  return true;
}

}  // namespace

bool ReadReportOrLook(ByteSource* source, std::string* text, Report* report, bool* ok, std::string* error) {
  std::string read_error;  // a read error while looking recurs when the scan reads on, which reports it
  bool too_large = false;
  if (!IsOneJsonObject(source, text, &too_large, &read_error)) return false;
  if (too_large) {
    *ok = false;
    *error = TooLarge();
    return true;
  }
  *ok = ParseJsonReport(*text, report, error);  // parsed once when it is a report
  if (*ok || NamesSchemaVersion(*text)) return true;
  *report = Report{};  // one JSON object that is no report: a log of one line
  return false;
}

bool ReadJsonReport(int fd, Report* report, std::string* error) {
  FdSource raw(fd);
  std::string text;
  std::unique_ptr<ByteSource> source = OpenDecompressing(&raw);
  return ReadReportText(source.get(), &text, error) && ParseJsonReport(text, report, error);
}

}  // namespace oomlens
