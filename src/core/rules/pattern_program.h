// A backtracking matcher for the signature patterns SimplePattern's flat subset
// leaves out: alternation, case folding ((?i:...) and (?i)), word boundaries, the
// anchors ^ $ \A \z, lazy quantifiers, nested and quantified groups. RE2 spends
// about a thousand instructions a call before it reads a byte, and compiling one
// of the long size patterns costs it about a million; this program is read from
// the pattern's text in microseconds and runs a dump entry's field in a few
// hundred instructions.
//
// It gives exactly RE2's leftmost-first answer (as a backtracking engine does)
// for the patterns it takes, matched as Latin-1 bytes like every signature
// pattern (but where Debian's RE2 is wrong: alternatives sharing a prefix with a
// byte from 0x80, "\xbb\xbbn|\xbb\xbbm", match nothing there; see pattern_fuzzer). It refuses what RE2
// answers otherwise than backtracking would (a quantifier over something that can match empty) and what it
// does not read (other flags, \p, \Q, \x, named classes), and a pattern whose matches may start at most
// places of a line (a number, any word first): trying each place in turn costs more there than RE2's DFA. A
// search that costs too many steps or too deep a stack gives up: RE2 answers then.
#ifndef OOMLENS_CORE_RULES_PATTERN_PROGRAM_H_
#define OOMLENS_CORE_RULES_PATTERN_PROGRAM_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/rules/pattern_syntax.h"
#include "core/rules/simple_pattern.h"

namespace oomlens {

class PatternProgram {
 public:
  /// Null when the pattern is outside what it reads (see above). kAnywhere takes
  /// a pattern whose matches may start anywhere too (the tests' random patterns).
  enum class Starts { kNarrow, kAnywhere };
  static std::unique_ptr<PatternProgram> Compile(std::string_view pattern, Starts starts = Starts::kNarrow);

  /// As SimplePattern::Match: the leftmost match starting at or after pos, with
  /// the whole text as context (^ only at its start, \b looks before pos).
  /// Groups that took no part in the match are null views, as RE2 gives them.
  SimplePattern::Result Match(std::string_view text, size_t pos, std::string_view* sub, int nsub) const;
  int groups() const { return groups_; }

  /// kSetLoop: as many bytes of set x as there are, then on; giving them back one
  /// by one when what follows fails (a greedy x* of one set, without a choice per byte).
  enum class Op : uint8_t { kByte, kSet, kSetLoop, kSplit, kJump, kSave, kAssert, kMatch };
  enum class Assertion : uint8_t { kBeginText, kEndText, kWordBoundary, kNotWordBoundary };
  struct Inst {
    Op op = Op::kMatch;
    Assertion assertion = Assertion::kBeginText;
    unsigned char byte = 0;  // kByte
    uint32_t x = 0, y = 0;   // kSplit: preferred, other; kJump: target; kSave: slot; kSet(Loop): set index
  };

 private:
  friend class PatternCompiler;
  struct Frame;
  SimplePattern::Result Run(std::string_view text, size_t start, size_t* caps, size_t* budget) const;
  void FindStart();
  bool NextBytes(uint32_t pc, ByteSet* set, std::vector<uint32_t>* readers) const;
  bool MayStartAt(std::string_view text, size_t i) const {
    if (!(start_bytes_[static_cast<unsigned char>(text[i])] & kFirst)) return false;
    return i + 1 < text.size() ? (start_bytes_[static_cast<unsigned char>(text[i + 1])] & kSecond) != 0
                               : one_byte_match_;
  }

  std::vector<Inst> insts_;
  std::vector<ByteSet> sets_;
  int groups_ = 0;
  std::string prefix_;  // the bytes every match starts with, searched with find()
  // By byte: kFirst when a match can start with it, kSecond when a match can go
  // on with it after its first byte (every byte when it can end there).
  static constexpr uint8_t kFirst = 1, kSecond = 2;
  uint8_t start_bytes_[256] = {};
  int first_members_ = 256;
  bool one_byte_match_ = true;
  bool can_be_empty_ = true;
  bool anchored_ = false;  // every match starts at the text's start (^ or \A first)
};

}  // namespace oomlens

#endif  // OOMLENS_CORE_RULES_PATTERN_PROGRAM_H_
