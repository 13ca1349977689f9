// Leaves members out of a JSON text before it is parsed: the built-in rules load
// without their samples (a fifth of their bytes), which only the checker reads.
#ifndef OOMLENS_CORE_RULES_JSON_STRIP_H_
#define OOMLENS_CORE_RULES_JSON_STRIP_H_

#include <string>
#include <string_view>

namespace oomlens {

/// text without the members named key of the objects `depth` levels down (1: the
/// top object's own; 3: those of the objects in its lists, a rule file's
/// signatures and cause rules), with a comma beside each so the rest still
/// parses. For text that parses as JSON; other text comes back unchanged where it
/// stops making sense, for the parser to report.
std::string WithoutMembers(std::string_view text, int depth, std::string_view key);

}  // namespace oomlens

#endif  // OOMLENS_CORE_RULES_JSON_STRIP_H_
