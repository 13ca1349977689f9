// The one list of report formats and colour modes, and the one dispatch.
#include <algorithm>
#include <cctype>

#include "oomlens/render.h"

namespace oomlens {
namespace {

bool EqualIgnoringCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

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

void RenderReport(const Report& report, Format format, const TextOptions& options, std::ostream& out) {
  switch (format) {
    case Format::kText: return RenderText(report, options, out);
    case Format::kJson: return RenderJson(report, out);
    case Format::kJsonl: return RenderJsonl(report, out);
    case Format::kMarkdown: return RenderMarkdown(report, out);
    case Format::kGithub: return RenderGithub(report, out);
    case Format::kSarif: return RenderSarif(report, out);
    case Format::kGitlab: return RenderGitlab(report, out);
    case Format::kHtml: return RenderHtml(report, out);
  }
}

}  // namespace oomlens
