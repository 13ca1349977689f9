// Internal: text made safe for a Markdown table cell, shared by the Markdown
// renderers of reports and fleets.
#ifndef OOMLENS_CORE_RENDER_MARKDOWN_CELL_H_
#define OOMLENS_CORE_RENDER_MARKDOWN_CELL_H_

#include <string>

namespace oomlens {

/// Escapes text for a Markdown table cell: no pipes, no line breaks, no HTML, and
/// no link, image, code span or emphasis a log line could make (a remote image in
/// a CI step summary).
std::string MarkdownCell(const std::string& text);

}  // namespace oomlens

#endif  // OOMLENS_CORE_RENDER_MARKDOWN_CELL_H_
