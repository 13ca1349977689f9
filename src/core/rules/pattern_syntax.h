// The pieces of RE2's syntax both of oomlens's own matchers read (SimplePattern's
// flat subset and PatternProgram): sets of bytes, classes, escapes and repeat
// counts, as RE2 reads them for a Latin-1 pattern.
#ifndef OOMLENS_CORE_RULES_PATTERN_SYNTAX_H_
#define OOMLENS_CORE_RULES_PATTERN_SYNTAX_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>

namespace oomlens {

using ByteSet = std::array<uint64_t, 4>;

inline bool Has(const ByteSet& set, unsigned char c) { return (set[c >> 6] >> (c & 63)) & 1; }
inline void Add(ByteSet* set, unsigned char c) { (*set)[c >> 6] |= uint64_t{1} << (c & 63); }
void AddRange(ByteSet* set, unsigned char lo, unsigned char hi);
void AddAll(ByteSet* set, const ByteSet& other);
bool Intersects(const ByteSet& a, const ByteSet& b);
/// How many bytes the set holds; *one is the last of them.
int Members(const ByteSet& set, unsigned char* one);
/// Adds the other case of every letter in the set, as RE2's (?i) does in Latin-1
/// (ASCII letters, and the accented letters U+00C0-U+00DE with U+00E0-U+00FE).
void FoldCase(ByteSet* set);

/// * + ? or the { of a count. Not strchr: a NUL byte in a pattern is a literal,
/// not the terminator of strchr's list.
inline bool IsQuantifier(char c) { return c == '*' || c == '+' || c == '?' || c == '{'; }

/// \d \w \s (RE2's Perl classes) into set; false for other letters.
bool PerlClass(char c, ByteSet* set);
/// The byte an escape stands for (\t \n \r \f, or escaped punctuation); -1 otherwise.
int EscapedByte(char c);

/// RE2's dot: every byte but a newline.
void AddDot(ByteSet* set);
/// The bytes the escape \e stands for: \d \w \s, their negations \D \W \S, \t \n
/// \r \f or escaped punctuation (its other case added when fold); false for any
/// other escape (an assertion such as \b is the caller's to read).
bool ReadEscapedSet(char e, bool fold, ByteSet* set);

/// A class from just after its '[' to just past its ']' (single bytes, ranges,
/// escapes, a leading '^'), folded first when fold; false (and *i anywhere) for
/// what RE2 may read otherwise: "[]...]", named classes, unknown escapes.
bool ReadClass(std::string_view p, size_t* i, bool fold, ByteSet* set);

constexpr uint32_t kManyRepeats = std::numeric_limits<uint32_t>::max();
/// {n}, {n,} or {n,m} from its '{' to just past its '}' (max kManyRepeats for {n,});
/// false for anything else, and counts above RE2's limit of 1000.
bool ReadRepeatCounts(std::string_view p, size_t* i, uint32_t* min, uint32_t* max);

}  // namespace oomlens

#endif  // OOMLENS_CORE_RULES_PATTERN_SYNTAX_H_
