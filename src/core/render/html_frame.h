// Internal: the frame the HTML renderers write their body into. A page is one
// <div class='oomlens-report'> in a document with a strict CSP; a fragment (for a
// notebook's output, which Jupyter puts into its own page as is) is the div alone.
// Either way every style rule is scoped to the div, so a fragment restyles nothing
// around it (newcomer review: _repr_html_ restyled the notebook's body, h1, table, pre).
#ifndef OOMLENS_CORE_RENDER_HTML_FRAME_H_
#define OOMLENS_CORE_RENDER_HTML_FRAME_H_

#include <ostream>
#include <string>

namespace oomlens {

/// The class of the one root element.
constexpr char kHtmlRoot[] = "oomlens-report";

/// css ("body{...}h1,h2{...}") with each selector put under .oomlens-report, `body`
/// becoming the root itself. Plain rules only: no @-rules, no braces in values.
std::string ScopedStyle(const std::string& css);

/// Opens the page (or the fragment) titled title (escaped already) with css.
void BeginHtml(bool fragment, const std::string& title, const std::string& css, const char* csp_extra,
               std::ostream& out);
void EndHtml(bool fragment, std::ostream& out);

}  // namespace oomlens

#endif  // OOMLENS_CORE_RENDER_HTML_FRAME_H_
