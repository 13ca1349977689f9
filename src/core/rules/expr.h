// The small expression language of cause rules.
//
//   requested_bytes > free_bytes and has(program)
//   (free_bytes - largest_contiguous_bytes) / free_bytes >= 0.25
//   requested_bytes > 2 * capacity_bytes or requested_bytes >= 1G
//
// Operators: or, and, not; > >= < <= == !=; + - * /; unary -; parentheses.
// Literals: numbers, sizes with a unit (512M, 1.5G, 4KiB), true, false.
// Functions: has(fact), phase(name, ...), min(a, b), max(a, b), abs(a), ceil(a), floor(a), sqrt(ratio)
// (kFunctions in expr.cc; the expression test checks this line against it).
// phase(eval, checkpoint) holds when the incident ran out in one of the phases named
// (its derived fact "phase"; none: unknown).
//
// Comparisons respect the rounding of printed values: "a > b" holds only when a
// exceeds b by more than their combined tolerance, "a >= b" unless a is below b
// by more than it; "==" means within tolerance. A fact the log did not print is
// absent; arithmetic on it is absent, a comparison with it is false, and
// not(absent) is absent (so a rule never fires on missing data). Division by
// zero is absent. Units are checked when the rule is loaded: sizes add to sizes,
// size / size is a number, text facts may only appear inside has().
#ifndef OOMLENS_CORE_RULES_EXPR_H_
#define OOMLENS_CORE_RULES_EXPR_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "oomlens/facts.h"

namespace oomlens {

/// The unit of an expression's value.
enum class Unit { kBool, kBytes, kNumber, kText, kAny };

/// A computed value. Absent values carry no number.
struct Value {
  bool present = false;
  Unit unit = Unit::kNumber;
  double number = 0;
  double tolerance = 0;
  std::string text;  ///< for text facts
  /// A fact's integer as the log printed it (sizes, counts), kept exactly: a double
  /// holds only 53 bits. Computed values are not exact.
  bool exact = false;
  int64_t integer = 0;
  bool truth() const { return present && unit == Unit::kBool && number != 0; }
};

/// Looks a fact up by name; returns nullptr when absent.
using FactLookup = std::function<const FactValue*(const std::string&)>;

struct ExprNode;

/// A parsed, type-checked expression. Immutable and thread-safe once built.
class Expr {
 public:
  /// Parses src. On failure returns nullptr and sets *error and *error_offset
  /// (byte offset into src).
  static std::unique_ptr<Expr> Parse(std::string_view src, std::string* error, size_t* error_offset);
  ~Expr();

  Value Evaluate(const FactLookup& facts) const;
  Unit unit() const;
  /// True when the expression is more than one fact's name: it computes a figure.
  bool Computes() const;
  const std::string& source() const { return source_; }

 private:
  Expr(std::string source, std::unique_ptr<ExprNode> root);
  std::string source_;
  std::unique_ptr<ExprNode> root_;
};

}  // namespace oomlens

#endif  // OOMLENS_CORE_RULES_EXPR_H_
