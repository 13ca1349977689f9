#include "core/render/html_frame.h"

#include <sstream>

namespace oomlens {
namespace {

std::string Trimmed(const std::string& s) {
  size_t b = s.find_first_not_of(" \n\t"), e = s.find_last_not_of(" \n\t");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::string ScopedSelector(const std::string& selector) {
  std::string root = std::string(".") + kHtmlRoot;
  return selector == "body" ? root : root + " " + selector;
}

}  // namespace

std::string ScopedStyle(const std::string& css) {
  std::string out;
  size_t at = 0;
  while (at < css.size()) {
    size_t open = css.find('{', at), close = css.find('}', open);
    if (open == std::string::npos || close == std::string::npos) break;
    std::istringstream selectors(css.substr(at, open - at));
    std::string scoped;
    for (std::string selector; std::getline(selectors, selector, ',');)
      scoped += (scoped.empty() ? "" : ",") + ScopedSelector(Trimmed(selector));
    out += scoped + css.substr(open, close - open + 1);
    at = close + 1;
  }
  return out;
}

void BeginHtml(bool fragment, const std::string& title, const std::string& css, const char* csp_extra,
               std::ostream& out) {
  if (!fragment) {
    out << "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        << "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; style-src "
           "'unsafe-inline'"
        << csp_extra << "\"><title>" << title << "</title></head><body>\n";
  }
  out << "<div class='" << kHtmlRoot << "'><style>" << ScopedStyle(css) << "</style>\n";
}

void EndHtml(bool fragment, std::ostream& out) {
  out << "</div>\n";
  if (!fragment) out << "</body></html>\n";
}

}  // namespace oomlens
