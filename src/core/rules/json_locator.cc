#include "core/rules/json_locator.h"

#include <algorithm>
#include <limits>

#include "core/rules/json_skip.h"

namespace oomlens {

std::string PointerEscape(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

JsonLocator::JsonLocator(std::string_view text, bool shallow) : text_(text) {
  line_starts_.push_back(0);
  for (size_t at = text_.find('\n'); at != std::string_view::npos; at = text_.find('\n', at + 1))
    line_starts_.push_back(at + 1);
  Locate(shallow ? kShallowDepth : std::numeric_limits<int>::max());
}

void JsonLocator::Locate(int max_depth) {
  whole_ = max_depth == std::numeric_limits<int>::max();
  pos_ = depth_ = 0;
  offsets_.clear();
  duplicates_.clear();
  pos_ = PastJsonSpace(text_, pos_);
  Value("", max_depth, true);
}

std::string JsonLocator::String() {
  std::string out;
  ++pos_;  // opening quote
  while (pos_ < text_.size() && text_[pos_] != '"') {
    if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) {
      out += text_[pos_ + 1];  // approximate: enough for keys
      pos_ += 2;
      continue;
    }
    out += text_[pos_++];
  }
  ++pos_;  // closing quote
  return out;
}

// Whether pointer is a duplicate found already or lies inside one (its members
// repeat too: one error for the key is enough).
bool JsonLocator::Within(const std::string& pointer) const {
  for (const auto& [dup, at] : duplicates_) {
    if (pointer.compare(0, dup.size(), dup) == 0 &&
        (pointer.size() == dup.size() || pointer[dup.size()] == '/'))
      return true;
  }
  return false;
}

void JsonLocator::Value(const std::string& pointer, int max_depth, bool element) {
  if (pos_ >= text_.size() || ++depth_ > 200) return;
  if (whole_ || element) offsets_[pointer] = pos_;
  if (depth_ > max_depth) {
    pos_ = PastJsonValue(text_, pos_);  // nothing recorded
    --depth_;
    return;
  }
  char c = text_[pos_];
  if (c == '{' || c == '[') {
    bool object = c == '{';
    char close = object ? '}' : ']';
    ++pos_;
    for (size_t index = 0;; ++index) {
      pos_ = PastJsonSpace(text_, pos_);
      if (pos_ >= text_.size() || text_[pos_] == close) break;
      std::string child = pointer + "/" + std::to_string(index);
      if (object) {
        if (text_[pos_] != '"') break;
        size_t key_at = pos_;
        child = pointer + "/" + PointerEscape(String());
        if (whole_ && offsets_.count(child) && !Within(child)) duplicates_.emplace_back(child, key_at);
        pos_ = PastJsonSpace(text_, pos_);
        if (pos_ < text_.size() && text_[pos_] == ':') ++pos_;
        pos_ = PastJsonSpace(text_, pos_);
      }
      size_t before = pos_;
      Value(child, max_depth, !object);
      pos_ = PastJsonSpace(text_, pos_);
      if (pos_ < text_.size() && text_[pos_] == ',') ++pos_;
      if (pos_ == before) break;  // no progress: malformed
    }
    if (pos_ < text_.size()) ++pos_;
  } else {
    pos_ = PastJsonValue(text_, pos_);  // a string or scalar: only keys are needed as text
  }
  --depth_;
}

std::string JsonLocator::WhereOffset(size_t offset) const {
  offset = std::min(offset, text_.size());
  auto next = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);  // the line after offset's
  size_t line = static_cast<size_t>(next - line_starts_.begin());
  size_t col = offset - line_starts_[line - 1] + 1;
  return std::to_string(line) + ":" + std::to_string(col);
}

std::string JsonLocator::Where(const std::string& pointer) {
  if (!whole_ && !offsets_.count(pointer)) Locate(std::numeric_limits<int>::max());
  std::string p = pointer;
  for (;;) {
    auto it = offsets_.find(p);
    if (it != offsets_.end()) return WhereOffset(it->second);
    size_t slash = p.rfind('/');
    if (slash == std::string::npos) return "1:1";
    p = p.substr(0, slash);
  }
}

}  // namespace oomlens
