// Text with computed parts, used for summaries, evidence and advice.
//
//   "needs {requested_bytes} but only {free_bytes} is free ({requested_bytes / free_bytes:ratio})"
//
// A part is {expression} or {expression:format}, format one of size, ratio (204.5x),
// pct (35%), share (a tip's target, printed as pct), num, int. "{{" and "}}" print braces. Rendering fails
// (returns false) when any part is absent, so a line never shows a number the log did not print, and when a
// computed figure is no number (a division by zero).
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

  /// Renders into *out. Returns false when a part is absent or not a number.
  bool Render(const FactLookup& facts, std::string* out) const;

  /// Renders a tip (advice, what would fit): as Render, and also false, with
  /// *no_room set, when a share it asks for rounds to 0% ("a batch at most 0% of
  /// this one"): the figures leave nothing for it.
  bool RenderTip(const FactLookup& facts, std::string* out, bool* no_room) const;

  /// True when a part computes a figure rather than printing a fact as read.
  bool Computes() const;

 private:
  struct Part {
    std::string literal;
    std::unique_ptr<Expr> expr;  // null for a literal part
    std::string format;
  };
  bool RenderParts(const FactLookup& facts, std::string* out, bool* no_room) const;

  std::vector<Part> parts_;
};

/// Formats a value for people: sizes as "29.34G", numbers with 2-3 digits.
std::string FormatValue(const Value& v, std::string_view format);

}  // namespace oomlens

#endif  // OOMLENS_CORE_RULES_TEMPLATE_H_
