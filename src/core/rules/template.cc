#include "core/rules/template.h"

#include <cmath>
#include <cstdio>

#include "oomlens/size.h"

namespace oomlens {
namespace {

const char* const kFormats[] = {"", "size", "ratio", "pct", "share", "num", "int", "count"};

std::string Number(double v) {
  char buf[64];
  double a = std::fabs(v);
  const char* fmt = a >= 100 || a == std::floor(a) ? "%.0f" : a >= 10 ? "%.1f" : "%.2f";
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

// A computed whole number; beyond int64 (or not a number) in scientific notation,
// never wrapped around.
std::string Integer(double v) {
  if (std::fabs(v) < 9.2e18) return std::to_string(std::llround(v));
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// Digits with thousands separators ("6,738,415,616"); scientific notation as it is.
std::string Grouped(std::string digits) {
  if (digits.find_first_not_of("-0123456789") != std::string::npos) return digits;  // 1.2e+19
  size_t first = digits[0] == '-' ? 1 : 0;
  for (size_t at = digits.size(); at > first + 3; at -= 3) digits.insert(at - 3, ",");
  return digits;
}

}  // namespace

std::string FormatValue(const Value& v, std::string_view format) {
  if (v.unit == Unit::kText) return v.text;
  if (v.unit == Unit::kBool) return v.number != 0 ? "yes" : "no";
  if (format == "size" || (format.empty() && v.unit == Unit::kBytes)) {
    return v.exact ? FormatSize(v.integer) : FormatComputedSize(v.number);
  }
  if (format == "ratio") {
    char buf[64];
    double a = std::fabs(v.number);
    std::snprintf(buf, sizeof buf, a >= 1000 ? "%.0fx" : a >= 10 ? "%.1fx" : "%.2fx", v.number);
    return buf;
  }
  if (format == "pct" || format == "share") {
    char buf[64];
    double p = v.number * 100;
    if (p > 0 && p < 0.05) return "<0.1%";  // not "0.0%": it is not nothing
    std::snprintf(buf, sizeof buf, std::fabs(p) >= 10 || p == 0 ? "%.0f%%" : "%.1f%%", p);
    return buf;
  }
  if (format == "count") return Grouped(v.exact ? std::to_string(v.integer) : Integer(v.number));
  if (v.exact) return std::to_string(v.integer);  // as printed, all its digits
  if (format == "int") return Integer(v.number);
  return Number(v.number);
}

std::unique_ptr<Template> Template::Parse(std::string_view text, std::string* error, size_t* error_offset) {
  auto t = std::unique_ptr<Template>(new Template());
  std::string literal;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {
      literal += c;
      ++i;
      continue;
    }
    if (c == '}') {
      *error = "unmatched '}' (write '}}' for a brace)";
      *error_offset = i;
      return nullptr;
    }
    if (c != '{') {
      literal += c;
      continue;
    }
    size_t close = text.find('}', i);
    if (close == std::string_view::npos) {
      *error = "unclosed '{' (write '{{' for a brace)";
      *error_offset = i;
      return nullptr;
    }
    std::string_view inner = text.substr(i + 1, close - i - 1);
    std::string format;
    size_t colon = inner.rfind(':');
    if (colon != std::string_view::npos) {
      format = std::string(inner.substr(colon + 1));
      inner = inner.substr(0, colon);
      bool known = false;
      for (const char* f : kFormats) known = known || format == f;
      if (!known) {
        *error = "unknown format ':" + format + "' (formats: size, ratio, pct, share, num, int)";
        *error_offset = i + 1 + colon;
        return nullptr;
      }
    }
    size_t offset = 0;
    auto expr = Expr::Parse(inner, error, &offset);
    if (!expr) {
      *error_offset = i + 1 + offset;
      return nullptr;
    }
    if (!literal.empty()) t->parts_.push_back(Part{std::move(literal), nullptr, ""});
    literal.clear();
    t->parts_.push_back(Part{"", std::move(expr), format});
    i = close;
  }
  if (!literal.empty()) t->parts_.push_back(Part{std::move(literal), nullptr, ""});
  return t;
}

bool Template::Computes() const {
  for (const Part& p : parts_)
    if (p.expr && p.expr->Computes()) return true;
  return false;
}

bool Template::Render(const FactLookup& facts, std::string* out) const {
  return RenderParts(facts, out, nullptr);
}

bool Template::RenderTip(const FactLookup& facts, std::string* out, bool* no_room) const {
  *no_room = false;
  return RenderParts(facts, out, no_room);
}

// no_room, when given, also refuses a share (a tip's target) under 0.05%.
bool Template::RenderParts(const FactLookup& facts, std::string* out, bool* no_room) const {
  out->clear();
  for (const Part& p : parts_) {
    if (!p.expr) {
      *out += p.literal;
      continue;
    }
    Value v = p.expr->Evaluate(facts);
    if (!v.present) return false;
    bool figure = v.unit == Unit::kNumber || v.unit == Unit::kBytes;
    if (figure && !std::isfinite(v.number)) return false;
    if (no_room && figure && p.format == "share" && v.number < 0.0005) {  // 0%, or below nothing
      *no_room = true;
      return false;
    }
    *out += FormatValue(v, p.format);
  }
  return true;
}

}  // namespace oomlens
