// Moving past parts of a JSON text without parsing it: the rule loader's locator
// (where a value starts) and the sample stripper (which members to leave out)
// both read text this way. Each returns text.size() where the text ends first.
#ifndef OOMLENS_CORE_RULES_JSON_SKIP_H_
#define OOMLENS_CORE_RULES_JSON_SKIP_H_

#include <cstddef>
#include <string_view>

namespace oomlens {

/// JSON's four white-space bytes.
inline bool IsJsonSpace(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

/// Past the white space from at.
size_t PastJsonSpace(std::string_view text, size_t at);
/// Past the string whose opening quote is text[at]: a quote closes it unless an
/// odd run of backslashes escapes it.
size_t PastJsonString(std::string_view text, size_t at);
/// Past the value that starts at text[at]: a string, a list or an object (its
/// nesting counted, strings inside skipped), or a scalar (up to , ] } or space).
size_t PastJsonValue(std::string_view text, size_t at);

}  // namespace oomlens

#endif  // OOMLENS_CORE_RULES_JSON_SKIP_H_
