// The one list of report formats and colour modes, and the one dispatch.
#include <algorithm>
#include <cctype>

#include "core/model/ascii.h"
#include "oomlens/render.h"

namespace oomlens {
namespace {

// The index of name in names, ignoring case; -1 when absent.
int IndexOf(const std::vector<std::string>& names, std::string_view name) {
  for (size_t i = 0; i < names.size(); ++i)
    if (EqualIgnoringCase(names[i], name)) return static_cast<int>(i);
  return -1;
}

}  // namespace

const std::vector<std::string>& FormatNames() {
  static const std::vector<std::string> names = {"text",   "json",  "jsonl",  "markdown",
                                                 "github", "sarif", "gitlab", "html"};
  return names;
}

const std::string& FormatName(Format format) { return FormatNames()[static_cast<size_t>(format)]; }

std::optional<Format> ParseFormat(std::string_view name) {
  int index = IndexOf(FormatNames(), name);
  if (index < 0) return std::nullopt;
  return static_cast<Format>(index);
}

const std::vector<std::string>& ColorModeNames() {
  static const std::vector<std::string> names = {"auto", "always", "never"};
  return names;
}

std::optional<ColorMode> ParseColorMode(std::string_view name) {
  int index = IndexOf(ColorModeNames(), name);
  if (index < 0) return std::nullopt;
  return static_cast<ColorMode>(index);
}

namespace {

// A character that reorders the text around it (U+061C, U+200E/F, U+202A-E, U+2066-9):
// a name holding one reads other than its bytes (Trojan Source; attack review K8).
bool IsBidiControl(std::string_view utf8) {
  auto byte = [&utf8](size_t k) { return static_cast<unsigned char>(utf8[k]); };
  if (utf8.size() == 2) return byte(0) == 0xD8 && byte(1) == 0x9C;
  if (utf8.size() != 3 || byte(0) != 0xE2) return false;
  unsigned char b1 = byte(1), b2 = byte(2);
  return (b1 == 0x80 && (b2 == 0x8E || b2 == 0x8F || (b2 >= 0xAA && b2 <= 0xAE))) ||
         (b1 == 0x81 && b2 >= 0xA6 && b2 <= 0xA9);
}

}  // namespace

std::string GroupedCount(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t k = 0; k < digits.size(); ++k) {
    if (k > 0 && (digits.size() - k) % 3 == 0) out += ',';
    out += digits[k];
  }
  return out;
}

std::string Counted(uint64_t n, const char* one, const char* many) {
  return GroupedCount(n) + " " + (n == 1 ? one : many);
}

std::string Printable(std::string_view text, bool keep_line_breaks) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      bool line_break = keep_line_breaks && (c == '\n' || c == '\r');
      out += ((c < 0x20 && c != '\t' && !line_break) || c == 0x7f) ? '?' : static_cast<char>(c);
      ++i;
      continue;
    }
    size_t length = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
    bool valid = length > 0 && i + length <= text.size();
    for (size_t k = 1; valid && k < length; ++k)
      valid = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
    bool c1 =
        valid && length == 2 && c == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0;  // U+0080-U+009F
    if (!valid || c1 || (valid && IsBidiControl(text.substr(i, length)))) {
      out += '?';
      i += valid ? length : 1;
      continue;
    }
    out.append(text.substr(i, length));
    i += length;
  }
  return out;
}

void RenderReport(const Report& report, Format format, const RenderOptions& options, std::ostream& out) {
  switch (format) {
    case Format::kText: return RenderText(report, options, out);
    case Format::kJson: return RenderJson(report, out);
    case Format::kJsonl: return RenderJsonl(report, out);
    case Format::kMarkdown: return RenderMarkdown(report, out, 1000 * 1000, options.incidents_total);
    case Format::kGithub: return RenderGithub(report, options.gate, out);
    case Format::kSarif: return RenderSarif(report, options.gate, out);
    case Format::kGitlab: return RenderGitlab(report, options.gate, out);
    case Format::kHtml: return RenderHtml(report, out, options.incidents_total);
  }
}

}  // namespace oomlens
