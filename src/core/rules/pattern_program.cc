#include "core/rules/pattern_program.h"

#include <algorithm>

#include "core/rules/pattern_syntax.h"

namespace oomlens {

namespace {

constexpr int kMaxGroups = 31;      // capture slots live on the stack
constexpr size_t kMaxInsts = 4096;  // {n,m} repeats its body: bound what a pattern expands to
constexpr int kMaxNesting = 32;     // groups inside groups
constexpr size_t kMaxFrames = 512;  // backtracking points held at once, then RE2 answers
constexpr size_t kNoPos = static_cast<size_t>(-1);
// A search tries every place a match can start: where that is most places
// (a number, any word), RE2's DFA is faster than trying each in turn, so such a
// pattern is left to RE2. Eight bytes: a case-folded word or two.
constexpr int kMaxFirstBytes = 8;

using Op = PatternProgram::Op;
using Assertion = PatternProgram::Assertion;

// The pattern as a tree, read before it is laid out as a program.
struct Node {
  enum class Kind { kEmpty, kSet, kAssert, kConcat, kAlternate, kRepeat, kCapture };
  Kind kind = Kind::kEmpty;
  ByteSet set{};
  Assertion assertion = Assertion::kBeginText;
  std::vector<Node> subs;
  uint32_t min = 0, max = 0;
  bool greedy = true;
  int group = 0;
  bool flags_only = false;  // "(?i)": nothing to repeat
};

bool CanBeEmpty(const Node& node) {
  switch (node.kind) {
    case Node::Kind::kSet: return false;
    case Node::Kind::kConcat: return std::all_of(node.subs.begin(), node.subs.end(), CanBeEmpty);
    case Node::Kind::kAlternate: return std::any_of(node.subs.begin(), node.subs.end(), CanBeEmpty);
    case Node::Kind::kRepeat: return node.min == 0 || CanBeEmpty(node.subs[0]);
    case Node::Kind::kCapture: return CanBeEmpty(node.subs[0]);
    default: return true;
  }
}

bool IsWordByte(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

bool Holds(Assertion assertion, std::string_view text, size_t p) {
  switch (assertion) {
    case Assertion::kBeginText: return p == 0;
    case Assertion::kEndText: return p == text.size();
    default: {
      bool before = p > 0 && IsWordByte(static_cast<unsigned char>(text[p - 1]));
      bool after = p < text.size() && IsWordByte(static_cast<unsigned char>(text[p]));
      return (before != after) == (assertion == Assertion::kWordBoundary);
    }
  }
}

// Reads a pattern into a tree; false for anything outside what the program runs.
class PatternParser {
 public:
  explicit PatternParser(std::string_view p) : p_(p) {}

  bool Parse(Node* out) { return Alternate(false, 0, out) && i_ == p_.size(); }
  int groups() const { return groups_; }

 private:
  // Branches separated by '|', up to a ')' or the end. A (?i) in one branch holds
  // for the rest of its group, the later branches too (as in RE2).
  bool Alternate(bool fold, int nesting, Node* out) {
    if (nesting > kMaxNesting) return false;
    out->kind = Node::Kind::kAlternate;
    for (;;) {
      Node branch;
      branch.kind = Node::Kind::kConcat;
      while (i_ < p_.size() && p_[i_] != '|' && p_[i_] != ')') {
        Node atom;
        if (!Atom(&fold, nesting, &atom) || !Quantify(&atom)) return false;
        if (!atom.flags_only) branch.subs.push_back(std::move(atom));
      }
      out->subs.push_back(std::move(branch));
      if (i_ == p_.size() || p_[i_] == ')') return true;
      ++i_;  // '|'
    }
  }

  bool Atom(bool* fold, int nesting, Node* out) {
    char c = p_[i_++];
    switch (c) {
      case '(': return Group(fold, nesting, out);
      case '[': out->kind = Node::Kind::kSet; return ReadClass(p_, &i_, *fold, &out->set);
      case '.':
        out->kind = Node::Kind::kSet;
        AddDot(&out->set);
        return true;
      case '^': return Assert(Assertion::kBeginText, out);
      case '$': return Assert(Assertion::kEndText, out);
      case '\\': return Escape(*fold, out);
      default:
        if (c == ']' || c == '}' || IsQuantifier(c)) return false;
        out->kind = Node::Kind::kSet;
        Add(&out->set, static_cast<unsigned char>(c));
        if (*fold) FoldCase(&out->set);
        return true;
    }
  }

  bool Assert(Assertion assertion, Node* out) {
    out->kind = Node::Kind::kAssert;
    out->assertion = assertion;
    return true;
  }

  bool Escape(bool fold, Node* out) {
    if (i_ >= p_.size()) return false;
    char e = p_[i_++];
    switch (e) {
      case 'b': return Assert(Assertion::kWordBoundary, out);
      case 'B': return Assert(Assertion::kNotWordBoundary, out);
      case 'A': return Assert(Assertion::kBeginText, out);
      case 'z': return Assert(Assertion::kEndText, out);
      default: break;
    }
    out->kind = Node::Kind::kSet;
    return ReadEscapedSet(e, fold, &out->set);
  }

  // After '(': (?P<name>...), (?:...), (?i:...), (...), or the flag (?i).
  bool Group(bool* fold, int nesting, Node* out) {
    bool capture = true, inner_fold = *fold;
    if (p_.compare(i_, 3, "?i)") == 0) {
      i_ += 3;
      *fold = true;
      out->flags_only = true;
      return true;
    }
    if (p_.compare(i_, 3, "?P<") == 0) {
      size_t name = i_ + 3, close = p_.find('>', name);
      if (close == std::string_view::npos || close == name) return false;
      for (size_t k = name; k < close; ++k)
        if (!IsWordByte(static_cast<unsigned char>(p_[k]))) return false;
      i_ = close + 1;
    } else if (p_.compare(i_, 2, "?:") == 0) {
      i_ += 2;
      capture = false;
    } else if (p_.compare(i_, 3, "?i:") == 0) {
      i_ += 3;
      capture = false;
      inner_fold = true;
    } else if (i_ < p_.size() && p_[i_] == '?') {
      return false;  // other flags, lookarounds, (?<name>...)
    }
    if (capture && groups_ == kMaxGroups) return false;
    int group = capture ? ++groups_ : 0;
    Node inner;
    if (!Alternate(inner_fold, nesting + 1, &inner) || i_ >= p_.size()) return false;
    ++i_;  // ')'
    if (!capture) {
      *out = std::move(inner);
      return true;
    }
    out->kind = Node::Kind::kCapture;
    out->group = group;
    out->subs.push_back(std::move(inner));
    return true;
  }

  // A quantifier after an atom, if any. One over something that can match empty
  // is refused: RE2 and a backtracking engine differ on empty iterations.
  bool Quantify(Node* atom) {
    if (i_ >= p_.size() || !IsQuantifier(p_[i_])) return true;
    uint32_t min = 0, max = 0;
    char c = p_[i_];
    if (c == '{') {
      if (!ReadRepeatCounts(p_, &i_, &min, &max)) return false;
    } else {
      ++i_;
      min = c == '+' ? 1 : 0;
      max = c == '?' ? 1 : kManyRepeats;
    }
    bool greedy = !(i_ < p_.size() && p_[i_] == '?');
    if (!greedy) ++i_;
    if (i_ < p_.size() && IsQuantifier(p_[i_])) return false;  // doubled: RE2's own reading
    if (atom->flags_only || CanBeEmpty(*atom)) return false;
    Node repeat;
    repeat.kind = Node::Kind::kRepeat;
    repeat.min = min;
    repeat.max = max;
    repeat.greedy = greedy;
    repeat.subs.push_back(std::move(*atom));
    *atom = std::move(repeat);
    return true;
  }

  std::string_view p_;
  size_t i_ = 0;
  int groups_ = 0;
};

}  // namespace

// Lays a tree out as instructions: Split tries x first, then y (leftmost-first).
class PatternCompiler {
 public:
  explicit PatternCompiler(PatternProgram* program) : program_(program) {}

  bool Compile(const Node& root) {
    Emit({Op::kSave, Assertion::kBeginText, 0, 0, 0});
    Lay(root);
    Emit({Op::kSave, Assertion::kBeginText, 0, 1, 0});
    Emit({Op::kMatch});
    return insts().size() <= kMaxInsts;
  }

 private:
  std::vector<PatternProgram::Inst>& insts() { return program_->insts_; }
  size_t Here() { return insts().size(); }
  size_t Emit(PatternProgram::Inst inst) {
    insts().push_back(inst);
    return insts().size() - 1;
  }
  size_t Split() { return Emit({Op::kSplit}); }
  void Aim(size_t split, uint32_t body, uint32_t past, bool greedy) {
    insts()[split].x = greedy ? body : past;
    insts()[split].y = greedy ? past : body;
  }

  void Lay(const Node& node) {
    if (Here() > kMaxInsts) return;  // Compile refuses it
    switch (node.kind) {
      case Node::Kind::kEmpty: return;
      case Node::Kind::kSet: return Set(node.set);
      case Node::Kind::kAssert: Emit({Op::kAssert, node.assertion}); return;
      case Node::Kind::kConcat:
        for (const auto& sub : node.subs) Lay(sub);
        return;
      case Node::Kind::kAlternate: return Alternate(node);
      case Node::Kind::kCapture:
        Emit({Op::kSave, Assertion::kBeginText, 0, static_cast<uint32_t>(2 * node.group), 0});
        Lay(node.subs[0]);
        Emit({Op::kSave, Assertion::kBeginText, 0, static_cast<uint32_t>(2 * node.group + 1), 0});
        return;
      case Node::Kind::kRepeat: return Repeat(node);
    }
  }

  void Set(const ByteSet& set) {
    unsigned char one = 0;
    if (Members(set, &one) == 1) {
      Emit({Op::kByte, Assertion::kBeginText, one});
      return;
    }
    program_->sets_.push_back(set);
    Emit({Op::kSet, Assertion::kBeginText, 0, static_cast<uint32_t>(program_->sets_.size() - 1), 0});
  }
  void SetLoop(const ByteSet& set) {
    program_->sets_.push_back(set);
    Emit({Op::kSetLoop, Assertion::kBeginText, 0, static_cast<uint32_t>(program_->sets_.size() - 1), 0});
  }

  void Alternate(const Node& node) {
    std::vector<size_t> to_end;
    for (size_t k = 0; k + 1 < node.subs.size(); ++k) {
      size_t split = Split();
      Lay(node.subs[k]);
      to_end.push_back(Emit({Op::kJump}));
      Aim(split, static_cast<uint32_t>(split + 1), static_cast<uint32_t>(Here()), true);
    }
    Lay(node.subs.back());
    for (size_t jump : to_end) insts()[jump].x = static_cast<uint32_t>(Here());
  }

  // x{n,m} as n copies of x, then m - n nested optional copies (x(x)?)?, as RE2
  // does; x{n,} as n copies and a loop (one instruction when x is one set, greedy).
  void Repeat(const Node& node) {
    const Node& body = node.subs[0];
    for (uint32_t k = 0; k < node.min && Here() <= kMaxInsts; ++k) Lay(body);
    if (node.max == kManyRepeats && node.greedy && body.kind == Node::Kind::kSet) return SetLoop(body.set);
    if (node.max == kManyRepeats) {
      size_t loop = Split();
      Lay(body);
      Emit({Op::kJump, Assertion::kBeginText, 0, static_cast<uint32_t>(loop), 0});
      Aim(loop, static_cast<uint32_t>(loop + 1), static_cast<uint32_t>(Here()), node.greedy);
      return;
    }
    std::vector<size_t> splits;
    for (uint32_t k = node.min; k < node.max && Here() <= kMaxInsts; ++k) {
      splits.push_back(Split());
      Lay(body);
    }
    for (size_t split : splits)
      Aim(split, static_cast<uint32_t>(split + 1), static_cast<uint32_t>(Here()), node.greedy);
  }

  PatternProgram* program_;
};

std::unique_ptr<PatternProgram> PatternProgram::Compile(std::string_view pattern, Starts starts) {
  Node root;
  PatternParser parser(pattern);
  if (!parser.Parse(&root)) return nullptr;
  std::unique_ptr<PatternProgram> program(new PatternProgram());
  program->groups_ = parser.groups();
  if (!PatternCompiler(program.get()).Compile(root)) return nullptr;
  program->FindStart();
  bool narrow =
      !program->prefix_.empty() || (!program->can_be_empty_ && program->first_members_ <= kMaxFirstBytes);
  return narrow || starts == Starts::kAnywhere ? std::move(program) : nullptr;
}

// The bytes the instructions reachable from pc without reading one can read
// next, into *set; with the consuming instructions among them into *readers.
// True when the match can end there instead (it reads nothing more).
bool PatternProgram::NextBytes(uint32_t pc, ByteSet* set, std::vector<uint32_t>* readers) const {
  bool can_end = false;
  std::vector<bool> seen(insts_.size());
  std::vector<uint32_t> todo = {pc};
  while (!todo.empty()) {
    uint32_t at = todo.back();
    todo.pop_back();
    if (seen[at]) continue;
    seen[at] = true;
    const Inst& inst = insts_[at];
    switch (inst.op) {
      case Op::kByte: Add(set, inst.byte); break;
      case Op::kSet: AddAll(set, sets_[inst.x]); break;
      case Op::kSetLoop:  // a byte of its set, or none and on
        AddAll(set, sets_[inst.x]);
        todo.push_back(at + 1);
        break;
      case Op::kMatch: can_end = true; break;
      case Op::kSplit:
        todo.push_back(inst.x);
        todo.push_back(inst.y);
        break;
      case Op::kJump: todo.push_back(inst.x); break;
      default: todo.push_back(at + 1); break;  // saves and assertions read no byte
    }
    if ((inst.op == Op::kByte || inst.op == Op::kSet || inst.op == Op::kSetLoop) && readers)
      readers->push_back(at);
  }
  return can_end;
}

// The literal bytes every match starts with, else the bytes a match can start
// with and those it can go on with: where a search may begin.
void PatternProgram::FindStart() {
  size_t pc = 0;
  for (;; ++pc) {
    if (insts_[pc].op == Op::kSave) continue;
    if (insts_[pc].op != Op::kByte) break;
    prefix_ += static_cast<char>(insts_[pc].byte);
  }
  anchored_ =
      prefix_.empty() && insts_[pc].op == Op::kAssert && insts_[pc].assertion == Assertion::kBeginText;
  std::vector<uint32_t> firsts;
  ByteSet first{}, second{};
  can_be_empty_ = NextBytes(0, &first, &firsts);
  bool one_byte_match = false;
  for (uint32_t at : firsts) {
    one_byte_match |= NextBytes(at + 1, &second, nullptr);
    if (insts_[at].op == Op::kSetLoop) AddAll(&second, sets_[insts_[at].x]);  // its next byte, too
  }
  for (unsigned c = 0; c < 256; ++c) {
    auto byte = static_cast<unsigned char>(c);
    start_bytes_[c] = static_cast<uint8_t>((Has(first, byte) ? kFirst : 0) |
                                           (one_byte_match || Has(second, byte) ? kSecond : 0));
  }
  one_byte_match_ = one_byte_match;
  unsigned char any = 0;
  first_members_ = Members(first, &any);
}

struct PatternProgram::Frame {
  uint32_t pc;    // where to go on, or
  uint32_t slot;  // the capture slot to restore (kBranch, kLoop: none)
  size_t pos;     // ... from this position, or the slot's earlier value
  size_t from;    // kLoop: where its bytes began (pos gives them back down to it)
  static constexpr uint32_t kBranch = static_cast<uint32_t>(-1), kLoop = static_cast<uint32_t>(-2);
};

// One backtracking search anchored at start.
SimplePattern::Result PatternProgram::Run(std::string_view text, size_t start, size_t* caps,
                                          size_t* budget) const {
  Frame stack[kMaxFrames];
  size_t top = 0, p = start;
  uint32_t pc = 0;
  for (;;) {
    if ((*budget)-- == 0) return SimplePattern::Result::kGaveUp;
    const Inst& inst = insts_[pc];
    bool failed = false;
    switch (inst.op) {
      case Op::kByte:
        failed = p == text.size() || static_cast<unsigned char>(text[p]) != inst.byte;
        ++p, ++pc;
        break;
      case Op::kSet:
        failed = p == text.size() || !Has(sets_[inst.x], static_cast<unsigned char>(text[p]));
        ++p, ++pc;
        break;
      case Op::kSetLoop: {
        size_t from = p;
        while (p < text.size() && Has(sets_[inst.x], static_cast<unsigned char>(text[p]))) ++p;
        if (p - from > *budget) return SimplePattern::Result::kGaveUp;
        *budget -= p - from;
        ++pc;
        if (p == from) break;
        if (top == kMaxFrames) return SimplePattern::Result::kGaveUp;
        stack[top++] = {pc, Frame::kLoop, p, from};  // what follows is tried after each byte given back
        break;
      }
      case Op::kSplit:
        if (top == kMaxFrames) return SimplePattern::Result::kGaveUp;
        stack[top++] = {inst.y, Frame::kBranch, p, 0};
        pc = inst.x;
        break;
      case Op::kJump: pc = inst.x; break;
      case Op::kSave:
        if (top == kMaxFrames) return SimplePattern::Result::kGaveUp;
        stack[top++] = {0, inst.x, caps[inst.x], 0};
        caps[inst.x] = p;
        ++pc;
        break;
      case Op::kAssert:
        failed = !Holds(inst.assertion, text, p);
        ++pc;
        break;
      case Op::kMatch: return SimplePattern::Result::kMatch;
    }
    while (failed) {  // back to the last open choice, undoing the captures since
      if (top == 0) return SimplePattern::Result::kNoMatch;
      if (stack[top - 1].slot == Frame::kLoop) {  // one byte fewer, the last time at its start
        Frame& loop = stack[top - 1];
        p = --loop.pos;
        pc = loop.pc;
        if (loop.pos == loop.from) --top;
        failed = false;
        continue;
      }
      const Frame& frame = stack[--top];
      if (frame.slot != Frame::kBranch) {
        caps[frame.slot] = frame.pos;
        continue;
      }
      pc = frame.pc;
      p = frame.pos;
      failed = false;
    }
  }
}

SimplePattern::Result PatternProgram::Match(std::string_view text, size_t pos, std::string_view* sub,
                                            int nsub) const {
  if (pos > text.size()) return SimplePattern::Result::kNoMatch;
  // Steps for the whole search, then RE2 takes over: a few per byte is the
  // common case, many only on crafted text.
  size_t budget = 32 * (text.size() - pos) + 4 * insts_.size() + 256;
  size_t caps[2 * (kMaxGroups + 1)];
  size_t slots = 2 * static_cast<size_t>(groups_ + 1);
  for (size_t start = pos; start <= text.size(); ++start) {
    if (anchored_ && start > 0) return SimplePattern::Result::kNoMatch;
    if (!prefix_.empty()) {
      start = text.find(prefix_, start);
      if (start == std::string_view::npos) return SimplePattern::Result::kNoMatch;
    } else if (!can_be_empty_) {
      while (start < text.size() && !MayStartAt(text, start)) ++start;
      if (start == text.size()) return SimplePattern::Result::kNoMatch;
    }
    std::fill(caps, caps + slots, kNoPos);
    SimplePattern::Result result = Run(text, start, caps, &budget);
    if (result == SimplePattern::Result::kNoMatch) continue;
    if (result == SimplePattern::Result::kGaveUp) return result;
    for (int g = 0; g < nsub; ++g) {
      size_t slot = 2 * static_cast<size_t>(g);
      bool took_part = g <= groups_ && caps[slot] != kNoPos && caps[slot + 1] != kNoPos;
      sub[g] = took_part ? text.substr(caps[slot], caps[slot + 1] - caps[slot]) : std::string_view();
    }
    return SimplePattern::Result::kMatch;
  }
  return SimplePattern::Result::kNoMatch;
}

}  // namespace oomlens
