// Text with computed parts, used for summaries, evidence and advice.
//
//   "needs {requested_bytes} but only {free_bytes} is free ({requested_bytes / free_bytes:ratio})"
//
// A part is {expression} or {expression:format}, format one of size, ratio (204.5x),
// pct (35%), num, int. "{{" and "}}" print braces. Rendering fails (returns false)
// when any part is absent, so a line never shows a number the log did not print.
#ifndef OOMLENS_CORE_RULES_TEMPLATE_H_
#define OOMLENS_CORE_RULES_TEMPLATE_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/rules/expr.h"

namespace oomlens {

class Template {
 public:
  /// Parses text. On failure returns nullptr and sets *error and *error_offset.
  static std::unique_ptr<Template> Parse(std::string_view text, std::string* error, size_t* error_offset);

  /// Renders into *out. Returns false when a part is absent.
  bool Render(const FactLookup& facts, std::string* out) const;

  /// True when a part computes a figure rather than printing a fact as read.
  bool Computes() const;

 private:
  struct Part {
    std::string literal;
    std::unique_ptr<Expr> expr;  // null for a literal part
    std::string format;
  };
  std::vector<Part> parts_;
};

/// Formats a value for people: sizes as "29.34G", numbers with 2-3 digits.
std::string FormatValue(const Value& v, std::string_view format);

}  // namespace oomlens

#endif  // OOMLENS_CORE_RULES_TEMPLATE_H_
