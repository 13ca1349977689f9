// Finds where a JSON value starts in its source text, for error messages
// such as "rules/tpu.json:14:9: /signatures/3/start: invalid regex".
#ifndef OOMLENS_CORE_RULES_JSON_LOCATOR_H_
#define OOMLENS_CORE_RULES_JSON_LOCATOR_H_

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace oomlens {

/// Maps JSON pointers ("/signatures/0/start") to byte offsets of their values.
/// Built from text that already parsed as JSON; tolerant of anything else.
class JsonLocator {
 public:
  /// shallow: the elements of the top object's lists are located ("/signatures/3")
  /// and repeated keys are not looked for (the built-in rules, which the tests
  /// load whole, without samples); any other pointer asked for locates the rest
  /// then.
  explicit JsonLocator(std::string_view text, bool shallow = false);
  static constexpr int kShallowDepth = 2;
  /// "line:col" (1-based) of the value at pointer, or of its nearest located parent.
  /// Not const: a shallow locator completes itself for a deeper pointer.
  std::string Where(const std::string& pointer);
  /// "line:col" of a byte offset.
  std::string WhereOffset(size_t offset) const;
  /// Pointers of members whose key their object already had ("/causes/3/fit"), at
  /// the later one's offset, in the order found (a parser keeps only one of them).
  const std::vector<std::pair<std::string, size_t>>& duplicates() const { return duplicates_; }

 private:
  void Locate(int max_depth);
  void Value(const std::string& pointer, int max_depth, bool element);  // element: of a list, or the root
  std::string String();
  bool Within(const std::string& pointer) const;

  std::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;
  bool whole_ = false;  // every value located, repeated keys found
  std::map<std::string, size_t> offsets_;
  std::vector<std::pair<std::string, size_t>> duplicates_;
  std::vector<size_t> line_starts_;  // offset of each line's first byte: WhereOffset is a binary search
};

/// Escapes a key for a JSON pointer ("~" -> "~0", "/" -> "~1").
std::string PointerEscape(const std::string& key);

}  // namespace oomlens

#endif  // OOMLENS_CORE_RULES_JSON_LOCATOR_H_
