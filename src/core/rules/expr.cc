#include "core/rules/expr.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "core/model/from_chars.h"
#include "oomlens/report.h"
#include "oomlens/size.h"

namespace oomlens {

// The functions of the language besides has() (which takes a fact's name, not a
// value). The parser's arity and unit checks, its error message, the header's
// list and the evaluation all come from kFunctions.
enum class Function { kMin, kMax, kAbs, kCeil, kFloor, kSqrt };

struct FunctionSpec {
  const char* name;
  Function function;
  size_t arity;
  bool number_only;  // a size makes no sense (sqrt of bytes): only numbers and ratios
};

constexpr FunctionSpec kFunctions[] = {
    {"min", Function::kMin, 2, false},     {"max", Function::kMax, 2, false},
    {"abs", Function::kAbs, 1, false},     {"ceil", Function::kCeil, 1, false},
    {"floor", Function::kFloor, 1, false}, {"sqrt", Function::kSqrt, 1, true},
};

struct ExprNode {
  enum class Op { kLiteral, kFact, kHas, kPhase, kCall, kNeg, kNot, kAnd, kOr, kArith, kCompare };
  Op op;
  Function function = Function::kMin;  // of a kCall
  Unit unit = Unit::kNumber;
  std::string name;  // fact, function, or operator spelling
  Value literal;
  std::vector<std::unique_ptr<ExprNode>> args;
  std::vector<std::string> phases;  // of a kPhase
  int height = 1;                   // of the tree under this node: evaluation recurses this deep
};

namespace {

using Node = ExprNode;
using NodePtr = std::unique_ptr<ExprNode>;

const FunctionSpec* FindFunction(const std::string& name) {
  for (const auto& spec : kFunctions)
    if (name == spec.name) return &spec;
  return nullptr;
}

// "has, phase, min, max, abs, ceil, floor, sqrt": for error messages.
std::string FunctionNames() {
  std::string names = "has, phase";
  for (const auto& spec : kFunctions) names += std::string(", ") + spec.name;
  return names;
}

const char* UnitName(Unit u) {
  switch (u) {
    case Unit::kBool: return "a condition";
    case Unit::kBytes: return "a size";
    case Unit::kNumber: return "a number";
    case Unit::kText: return "a text fact";
    case Unit::kAny: return "a number";
  }
  return "?";
}

Unit UnitOfFact(FactType t) {
  switch (t) {
    case FactType::kSize: return Unit::kBytes;
    case FactType::kCount:
    case FactType::kRatio: return Unit::kNumber;
    case FactType::kText:
    case FactType::kIdentity: return Unit::kText;
  }
  return Unit::kNumber;
}

bool Numeric(Unit u) { return u == Unit::kBytes || u == Unit::kNumber || u == Unit::kAny; }

// Unifies the units of two operands that must agree; kAny adapts.
bool Unify(Unit a, Unit b, Unit* out) {
  if (a == Unit::kAny) {
    *out = b;
    return Numeric(b);
  }
  if (b == Unit::kAny) {
    *out = a;
    return Numeric(a);
  }
  *out = a;
  return a == b && Numeric(a);
}

constexpr int kMaxDepth = 64;  // nesting of parentheses, not and unary minus
constexpr int kMaxHeight =
    256;  // of the tree, however built (a chain of 50,000 '+' is as deep as it is long)

class Parser {
 public:
  explicit Parser(std::string_view src) : src_(src) {}

  NodePtr ParseAll(std::string* error, size_t* offset) {
    NodePtr n = ParseOr();
    SkipSpace();
    if (n && pos_ < src_.size()) Fail("unexpected '" + std::string(1, src_[pos_]) + "'");
    if (!error_.empty()) {
      *error = error_;
      *offset = error_pos_;
      return nullptr;
    }
    return n;
  }

 private:
  void Fail(const std::string& message) {
    if (error_.empty()) {
      error_ = message;
      error_pos_ = pos_;
    }
  }
  void SkipSpace() {
    while (pos_ < src_.size() && std::isspace(static_cast<unsigned char>(src_[pos_]))) ++pos_;
  }
  bool Word(std::string_view w) {
    SkipSpace();
    if (src_.substr(pos_, w.size()) != w) return false;
    size_t end = pos_ + w.size();
    if (end < src_.size() && (std::isalnum(static_cast<unsigned char>(src_[end])) || src_[end] == '_'))
      return false;
    pos_ = end;
    return true;
  }
  bool Symbol(std::string_view s) {
    SkipSpace();
    if (src_.substr(pos_, s.size()) != s) return false;
    pos_ += s.size();
    return true;
  }
  NodePtr Make(Node::Op op, Unit unit, std::string name, NodePtr a = nullptr, NodePtr b = nullptr) {
    auto n = std::make_unique<Node>();
    n->op = op;
    n->unit = unit;
    n->name = std::move(name);
    if (a) n->args.push_back(std::move(a));
    if (b) n->args.push_back(std::move(b));
    for (const auto& arg : n->args) n->height = std::max(n->height, arg->height + 1);
    if (n->height > kMaxHeight) {
      Fail("expression too long (more than " + std::to_string(kMaxHeight) +
           " operators in a chain): split it into several rules");
      return nullptr;
    }
    return n;
  }
  NodePtr Logical(Node::Op op, const char* word, NodePtr (Parser::*next)()) {
    NodePtr left = (this->*next)();
    while (left && Word(word)) {
      NodePtr right = (this->*next)();
      if (!right) return nullptr;
      if (left->unit != Unit::kBool || right->unit != Unit::kBool) {
        Fail(std::string("'") + word + "' needs conditions on both sides");
        return nullptr;
      }
      left = Make(op, Unit::kBool, word, std::move(left), std::move(right));
    }
    return left;
  }
  NodePtr ParseOr() { return Logical(Node::Op::kOr, "or", &Parser::ParseAnd); }
  NodePtr ParseAnd() { return Logical(Node::Op::kAnd, "and", &Parser::ParseNot); }
  // Counts one level of nesting for as long as it lives.
  struct Nest {
    explicit Nest(Parser* p) : parser(p) { ++parser->depth_; }
    ~Nest() { --parser->depth_; }
    Parser* parser;
  };
  bool TooDeep() {
    if (depth_ <= kMaxDepth) return false;
    Fail("expression nested too deeply (more than " + std::to_string(kMaxDepth) + " levels)");
    return true;
  }

  NodePtr ParseNot() {
    Nest nest(this);
    if (TooDeep()) return nullptr;
    if (Word("not")) {
      NodePtr inner = ParseNot();
      if (!inner) return nullptr;
      if (inner->unit != Unit::kBool) {
        Fail("'not' needs a condition");
        return nullptr;
      }
      return Make(Node::Op::kNot, Unit::kBool, "not", std::move(inner));
    }
    return ParseCompare();
  }
  NodePtr ParseCompare() {
    NodePtr left = ParseAdd();
    if (!left) return nullptr;
    for (const char* op : {">=", "<=", "==", "!=", ">", "<"}) {
      if (!Symbol(op)) continue;
      NodePtr right = ParseAdd();
      if (!right) return nullptr;
      Unit unit;
      if (!Unify(left->unit, right->unit, &unit)) {
        Fail(std::string("cannot compare ") + UnitName(left->unit) + " with " + UnitName(right->unit));
        return nullptr;
      }
      return Make(Node::Op::kCompare, Unit::kBool, op, std::move(left), std::move(right));
    }
    return left;
  }
  NodePtr ParseAdd() {
    NodePtr left = ParseMul();
    while (left) {
      std::string op = Symbol("+") ? "+" : Symbol("-") ? "-" : "";
      if (op.empty()) break;
      NodePtr right = ParseMul();
      if (!right) return nullptr;
      Unit unit;
      if (!Unify(left->unit, right->unit, &unit)) {
        Fail("cannot " + std::string(op == "+" ? "add " : "subtract ") + UnitName(right->unit) +
             (op == "+" ? " to " : " from ") + UnitName(left->unit));
        return nullptr;
      }
      left = Make(Node::Op::kArith, unit, op, std::move(left), std::move(right));
    }
    return left;
  }
  NodePtr ParseMul() {
    NodePtr left = ParseUnary();
    while (left) {
      std::string op = Symbol("*") ? "*" : Symbol("/") ? "/" : "";
      if (op.empty()) break;
      NodePtr right = ParseUnary();
      if (!right) return nullptr;
      Unit a = left->unit, b = right->unit, unit = Unit::kNumber;
      if (!Numeric(a) || !Numeric(b)) {
        Fail("'" + op + "' needs numbers or sizes");
        return nullptr;
      }
      if (op == "*") {
        if (a == Unit::kBytes && b == Unit::kBytes) {
          Fail("cannot multiply two sizes");
          return nullptr;
        }
        unit = (a == Unit::kBytes || b == Unit::kBytes) ? Unit::kBytes
               : (a == Unit::kAny && b == Unit::kAny)   ? Unit::kAny
                                                        : Unit::kNumber;
      } else {
        if (b == Unit::kBytes && a != Unit::kBytes) {
          Fail("cannot divide a number by a size");
          return nullptr;
        }
        unit = (a == Unit::kBytes && b != Unit::kBytes) ? Unit::kBytes : Unit::kNumber;
      }
      left = Make(Node::Op::kArith, unit, op, std::move(left), std::move(right));
    }
    return left;
  }
  NodePtr ParseUnary() {
    Nest nest(this);
    if (TooDeep()) return nullptr;
    if (Symbol("-")) {
      NodePtr inner = ParseUnary();
      if (!inner) return nullptr;
      if (!Numeric(inner->unit)) {
        Fail("'-' needs a number or a size");
        return nullptr;
      }
      Unit unit = inner->unit;
      return Make(Node::Op::kNeg, unit, "-", std::move(inner));
    }
    return ParsePrimary();
  }
  NodePtr ParseNumber() {
    size_t start = pos_;
    while (pos_ < src_.size() && (std::isdigit(static_cast<unsigned char>(src_[pos_])) || src_[pos_] == '.'))
      ++pos_;
    size_t unit_end = pos_;
    while (unit_end < src_.size() && std::isalpha(static_cast<unsigned char>(src_[unit_end]))) ++unit_end;
    std::string text(src_.substr(start, unit_end - start));
    auto n = Make(Node::Op::kLiteral, Unit::kAny, text);
    n->literal.present = true;
    if (unit_end > pos_) {
      std::string error;
      auto size = ParseSize(text, &error);
      if (!size) {
        pos_ = start;
        Fail("bad size literal: " + error);
        return nullptr;
      }
      n->unit = n->literal.unit = Unit::kBytes;
      n->literal.number = static_cast<double>(size->bytes);
    } else {
      n->literal.unit = Unit::kNumber;
      std::optional<double> number = ParseDouble(text);
      if (!number) {
        pos_ = start;
        Fail("bad number: '" + text + "'");
        return nullptr;
      }
      n->literal.number = *number;
    }
    pos_ = unit_end;
    return n;
  }
  // phase(eval, checkpoint): the incident ran out in one of these phases.
  NodePtr ParsePhase() {
    auto node = Make(Node::Op::kPhase, Unit::kBool, "phase");
    do {
      SkipSpace();
      size_t arg_pos = pos_;
      std::string phase = Identifier();
      bool known = false;
      std::string names;  // Phase::kNames, for the message
      for (const char* name : Phase::kNames) {
        known = known || phase == name;
        names += (names.empty() ? "" : ", ") + std::string(name);
      }
      if (!known) {
        pos_ = arg_pos;
        Fail("phase() needs phase names (" + names + "), got '" + phase + "'");
        return nullptr;
      }
      node->phases.push_back(phase);
    } while (Symbol(","));
    if (!Symbol(")")) {
      Fail("expected ')' after phase(" + node->phases.back());
      return nullptr;
    }
    return node;
  }

  NodePtr ParseCall(const std::string& name, size_t name_pos) {
    if (name == "has") {
      SkipSpace();
      size_t arg_pos = pos_;
      std::string fact = Identifier();
      if (!FindFact(fact)) {
        pos_ = arg_pos;
        Fail("has() needs a fact name, got '" + fact + "'");
        return nullptr;
      }
      if (!Symbol(")")) {
        Fail("expected ')' after has(" + fact);
        return nullptr;
      }
      return Make(Node::Op::kHas, Unit::kBool, fact);
    }
    if (name == "phase") return ParsePhase();
    const FunctionSpec* spec = FindFunction(name);
    if (!spec) {
      pos_ = name_pos;
      Fail("unknown function '" + name + "' (functions: " + FunctionNames() + ")");
      return nullptr;
    }
    auto call = Make(Node::Op::kCall, Unit::kNumber, name);
    call->function = spec->function;
    for (size_t i = 0; i < spec->arity; ++i) {
      if (i > 0 && !Symbol(",")) {
        Fail("expected ',' in " + name + "()");
        return nullptr;
      }
      NodePtr arg = ParseAdd();
      if (!arg) return nullptr;
      call->height = std::max(call->height, arg->height + 1);  // below kMaxHeight + 1: its args were built
      call->args.push_back(std::move(arg));
    }
    if (!Symbol(")")) {
      Fail("expected ')' to close " + name + "(");
      return nullptr;
    }
    Unit unit = call->args[0]->unit;
    if (spec->arity == 2 && !Unify(call->args[0]->unit, call->args[1]->unit, &unit)) {
      Fail(name + "() needs two values of the same unit");
      return nullptr;
    }
    if (!Numeric(unit)) {
      Fail(name + "() needs numbers or sizes");
      return nullptr;
    }
    if (spec->number_only && unit != Unit::kNumber) {
      Fail(name + "() needs a number (a ratio of two sizes), not a size");
      return nullptr;
    }
    call->unit = unit;
    return call;
  }
  std::string Identifier() {
    size_t start = pos_;
    while (pos_ < src_.size() && (std::isalnum(static_cast<unsigned char>(src_[pos_])) || src_[pos_] == '_'))
      ++pos_;
    return std::string(src_.substr(start, pos_ - start));
  }
  NodePtr ParsePrimary() {
    SkipSpace();
    if (pos_ >= src_.size()) {
      Fail("expression ends too early");
      return nullptr;
    }
    char c = src_[pos_];
    if (Symbol("(")) {
      NodePtr inner = ParseOr();
      if (inner && !Symbol(")")) Fail("expected ')'");
      return error_.empty() ? std::move(inner) : nullptr;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return ParseNumber();
    if (!std::isalpha(static_cast<unsigned char>(c)) && c != '_') {
      Fail("unexpected '" + std::string(1, c) + "'");
      return nullptr;
    }
    size_t name_pos = pos_;
    std::string name = Identifier();
    if (name == "true" || name == "false") {
      auto n = Make(Node::Op::kLiteral, Unit::kBool, name);
      n->literal = Value{true, Unit::kBool, name == "true" ? 1.0 : 0.0, 0, ""};
      return n;
    }
    if (Symbol("(")) return ParseCall(name, name_pos);
    const FactInfo* info = FindFact(name);
    if (!info) {
      pos_ = name_pos;
      Fail("unknown fact '" + name + "' (see 'oomlens rules facts' for the list)");
      return nullptr;
    }
    return Make(Node::Op::kFact, UnitOfFact(info->type), name);
  }

  std::string_view src_;
  size_t pos_ = 0;
  int depth_ = 0;
  std::string error_;
  size_t error_pos_ = 0;
};

Value Absent(Unit unit) { return Value{false, unit, 0, 0, ""}; }
Value Bool(bool b) { return Value{true, Unit::kBool, b ? 1.0 : 0.0, 0, ""}; }

Value Compare(const std::string& op, const Value& a, const Value& b) {
  if (!a.present || !b.present) return Absent(Unit::kBool);
  double diff = a.number - b.number, tol = a.tolerance + b.tolerance;
  if (op == ">") return Bool(diff > tol);
  if (op == ">=") return Bool(diff >= -tol);
  if (op == "<") return Bool(-diff > tol);
  if (op == "<=") return Bool(-diff >= -tol);
  if (op == "==") return Bool(std::fabs(diff) <= tol);
  return Bool(std::fabs(diff) > tol);
}

Value Arith(const Node& n, const Value& a, const Value& b) {
  if (!a.present || !b.present) return Absent(n.unit);
  Value r{true, n.unit, 0, 0, ""};
  const std::string& op = n.name;
  if (op == "+" || op == "-") {
    r.number = op == "+" ? a.number + b.number : a.number - b.number;
    r.tolerance = a.tolerance + b.tolerance;
  } else if (op == "*") {
    r.number = a.number * b.number;
    r.tolerance = std::fabs(a.number) * b.tolerance + std::fabs(b.number) * a.tolerance;
  } else {
    if (b.number == 0) return Absent(n.unit);
    r.number = a.number / b.number;
    r.tolerance =
        (std::fabs(a.number) * b.tolerance + std::fabs(b.number) * a.tolerance) / (b.number * b.number);
  }
  if (!std::isfinite(r.number)) return Absent(n.unit);
  return r;
}

Value Eval(const Node& n, const FactLookup& facts);

// A function call: absent when an argument is.
Value Call(const Node& n, const FactLookup& facts) {
  Value a = Eval(*n.args[0], facts);
  if (!a.present) return a;
  switch (n.function) {
    case Function::kSqrt:
      if (a.number < 0) return Absent(n.unit);
      a.number = std::sqrt(a.number);
      a.tolerance = a.number > 0 ? a.tolerance / (2 * a.number) : 0;  // d(sqrt x) = dx / (2 sqrt x)
      return a;
    case Function::kAbs: a.number = std::fabs(a.number); return a;
    case Function::kCeil: a.number = std::ceil(a.number); return a;
    case Function::kFloor: a.number = std::floor(a.number); return a;
    case Function::kMin:
    case Function::kMax: {
      Value b = Eval(*n.args[1], facts);
      if (!b.present) return b;
      bool pick_a = n.function == Function::kMin ? a.number <= b.number : a.number >= b.number;
      Value r = pick_a ? a : b;
      r.unit = n.unit;
      return r;
    }
  }
  return Absent(n.unit);
}

Value Eval(const Node& n, const FactLookup& facts) {
  switch (n.op) {
    case Node::Op::kLiteral: return n.literal;
    case Node::Op::kFact: {
      const FactValue* f = facts(n.name);
      if (!f) return Absent(n.unit);
      bool saturated = (f->integer == std::numeric_limits<int64_t>::max() ||   // a derived size beyond
                        f->integer == std::numeric_limits<int64_t>::min()) &&  // int64 (SizeValue)
                       f->number != static_cast<double>(f->integer);
      Value v{true, n.unit,
              f->type == FactType::kRatio || saturated ? f->number : static_cast<double>(f->integer),
              f->tolerance, f->text};
      if ((f->type == FactType::kSize || f->type == FactType::kCount) && !saturated) {
        v.number = static_cast<double>(f->integer);
        v.exact = true;
        v.integer = f->integer;
      }
      return v;
    }
    case Node::Op::kHas: return Bool(facts(n.name) != nullptr);
    case Node::Op::kPhase: {  // the derived fact "phase"; absent: unknown
      const FactValue* phase = facts("phase");
      std::string name = phase ? phase->text : "unknown";
      return Bool(std::find(n.phases.begin(), n.phases.end(), name) != n.phases.end());
    }
    case Node::Op::kNeg: {
      Value v = Eval(*n.args[0], facts);
      v.number = -v.number;
      v.exact = v.exact && v.integer != std::numeric_limits<int64_t>::min();
      v.integer = v.exact ? -v.integer : 0;
      return v;
    }
    case Node::Op::kNot: {
      Value v = Eval(*n.args[0], facts);
      return v.present ? Bool(v.number == 0) : v;
    }
    case Node::Op::kAnd: {
      Value a = Eval(*n.args[0], facts);
      if (a.present && a.number == 0) return Bool(false);
      Value b = Eval(*n.args[1], facts);
      if (b.present && b.number == 0) return Bool(false);
      return a.present && b.present ? Bool(true) : Absent(Unit::kBool);
    }
    case Node::Op::kOr: {
      Value a = Eval(*n.args[0], facts);
      if (a.truth()) return a;
      Value b = Eval(*n.args[1], facts);
      if (b.truth()) return b;
      return a.present && b.present ? Bool(false) : Absent(Unit::kBool);
    }
    case Node::Op::kArith: return Arith(n, Eval(*n.args[0], facts), Eval(*n.args[1], facts));
    case Node::Op::kCompare: return Compare(n.name, Eval(*n.args[0], facts), Eval(*n.args[1], facts));
    case Node::Op::kCall: return Call(n, facts);
  }
  return Absent(n.unit);
}

}  // namespace

bool Expr::Computes() const {
  return root_->op != ExprNode::Op::kFact && root_->op != ExprNode::Op::kLiteral;
}

Expr::Expr(std::string source, std::unique_ptr<ExprNode> root)
    : source_(std::move(source)), root_(std::move(root)) {}
Expr::~Expr() = default;

std::unique_ptr<Expr> Expr::Parse(std::string_view src, std::string* error, size_t* error_offset) {
  Parser parser(src);
  NodePtr root = parser.ParseAll(error, error_offset);
  if (!root) return nullptr;
  return std::unique_ptr<Expr>(new Expr(std::string(src), std::move(root)));
}

Value Expr::Evaluate(const FactLookup& facts) const { return Eval(*root_, facts); }

Unit Expr::unit() const { return root_->unit; }

}  // namespace oomlens
