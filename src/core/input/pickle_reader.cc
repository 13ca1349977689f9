#include "core/input/pickle_reader.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <unordered_map>

namespace oomlens {

const PickleValue* PickleValue::Get(std::string_view key) const {
  for (const auto& [k, v] : pairs)
    if (k->type == Type::kString && k->text == key) return v.get();
  return nullptr;
}

namespace {

using Node = std::shared_ptr<PickleValue>;
using Type = PickleValue::Type;

// What an opcode that names or calls code is, for the message that refuses it.
const char* CodeOpcode(unsigned char op) {
  switch (op) {
    case 'c': return "GLOBAL";
    case 0x93: return "STACK_GLOBAL";
    case 'R': return "REDUCE";
    case 'b': return "BUILD";
    case 'i': return "INST";
    case 'o': return "OBJ";
    case 0x81: return "NEWOBJ";
    case 0x92: return "NEWOBJ_EX";
    case 0x82:
    case 0x83:
    case 0x84: return "EXT";
    case 'P':
    case 'Q': return "PERSID";
    default: return nullptr;
  }
}

// The stack machine, one opcode at a time (no recursion: nesting costs no stack).
class Unpickler {
 public:
  Unpickler(std::string_view data, const PickleLimits& limits, PickleError* error)
      : data_(data), limits_(limits), error_(error) {}

  bool Run(PickleRef* out) {
    if (data_.size() < 2 || static_cast<unsigned char>(data_[0]) != 0x80)
      return Fail(0, "not a pickle of protocol 2 or later");
    int protocol = static_cast<unsigned char>(data_[1]);
    if (protocol < 2 || protocol > 5)
      return Fail(1, "pickle protocol " + std::to_string(protocol) + " is not 2 to 5");
    at_ = 2;
    while (at_ < data_.size()) {
      op_at_ = at_;
      unsigned char op = static_cast<unsigned char>(data_[at_++]);
      if (op == '.') {
        if (stack_.size() != 1 || !marks_.empty())
          return Fail(op_at_, "STOP with " + std::to_string(stack_.size()) + " values on the stack");
        *out = stack_.back();
        return true;
      }
      if (!Step(op)) return false;
    }
    return Fail(data_.size(), "the pickle ends without STOP (a truncated file?)");
  }

 private:
  bool Fail(uint64_t offset, const std::string& message) {
    error_->offset = offset;
    error_->message = message;
    return false;
  }
  bool Need(size_t n) {
    if (data_.size() - at_ >= n) return true;
    return Fail(op_at_, "the pickle ends inside an opcode (a truncated file?)");
  }
  uint64_t Unsigned(size_t n) {  // little-endian
    uint64_t v = 0;
    for (size_t k = 0; k < n; ++k)
      v |= static_cast<uint64_t>(static_cast<unsigned char>(data_[at_ + k])) << (8 * k);
    at_ += n;
    return v;
  }
  Node New(Type type) {
    if (++values_ > limits_.max_values) return nullptr;
    auto node = std::make_shared<PickleValue>();
    node->type = type;
    return node;
  }
  bool Push(Node node) {
    if (!node) {
      error_->too_many_values = true;
      return Fail(op_at_,
                  "more than " + std::to_string(limits_.max_values) + " values, more than oomlens holds");
    }
    stack_.push_back(std::move(node));
    return true;
  }
  bool Pop(Node* out) {
    if (stack_.size() <= (marks_.empty() ? 0 : marks_.back()))
      return Fail(op_at_, "an opcode takes a value from an empty stack");
    *out = std::move(stack_.back());
    stack_.pop_back();
    return true;
  }
  // The values above the last MARK, which the opcode takes off the stack.
  bool PopMark(std::vector<Node>* items) {
    if (marks_.empty()) return Fail(op_at_, "an opcode needs a MARK that was not set");
    size_t mark = marks_.back();
    marks_.pop_back();
    items->assign(std::make_move_iterator(stack_.begin() + static_cast<long>(mark)),
                  std::make_move_iterator(stack_.end()));
    stack_.resize(mark);
    return true;
  }
  // A value goes into a container: from then on it may not change, so no value
  // can ever hold itself (the pickler fills a container before it places it).
  // Its depth bounds the nesting: freeing a value a million levels deep would
  // overflow the stack (a one-byte TUPLE1 per level is all it takes).
  PickleRef Place(PickleValue* parent, const Node& item) {
    item->placed = true;
    parent->depth = std::max(parent->depth, item->depth + 1);
    too_deep_ = too_deep_ || parent->depth > limits_.max_depth;
    return item;
  }
  bool CheckDepth() {
    if (!too_deep_) return true;
    return Fail(op_at_, "values nested deeper than " + std::to_string(limits_.max_depth) + " levels");
  }
  bool Target(Type type, Node* target) {
    if (stack_.size() <= (marks_.empty() ? 0 : marks_.back())) return Fail(op_at_, "no container to add to");
    *target = stack_.back();
    if ((*target)->type != type) return Fail(op_at_, "adds to a value that is no such container");
    if ((*target)->placed)
      return Fail(op_at_, "changes a container already placed in another (a value that holds itself)");
    return true;
  }
  bool Append(const std::vector<Node>& items) {
    Node list;
    if (!Target(Type::kList, &list)) return false;
    for (const auto& item : items) {
      if (item == list) return Fail(op_at_, "a list that holds itself");
      list->items.push_back(Place(list.get(), item));
    }
    return CheckDepth();
  }
  bool SetItems(const std::vector<Node>& items) {
    if (items.size() % 2 != 0) return Fail(op_at_, "SETITEMS with an odd number of values");
    Node dict;
    if (!Target(Type::kDict, &dict)) return false;
    for (size_t k = 0; k < items.size(); k += 2) {
      if (items[k] == dict || items[k + 1] == dict) return Fail(op_at_, "a dict that holds itself");
      dict->pairs.emplace_back(Place(dict.get(), items[k]), Place(dict.get(), items[k + 1]));
    }
    return CheckDepth();
  }
  bool Sequence(Type type, std::vector<Node> items) {
    Node node = New(type);
    if (node)
      for (const auto& item : items) node->items.push_back(Place(node.get(), item));
    return CheckDepth() && Push(std::move(node));
  }
  bool Text(Type type, size_t length_bytes) {
    if (!Need(length_bytes)) return false;
    uint64_t n = Unsigned(length_bytes);
    if (n > limits_.max_string_bytes)
      return Fail(op_at_, "a string of " + std::to_string(n) + " bytes, over the limit");
    if (!Need(n)) return false;
    Node node = New(type);
    if (node) node->text.assign(data_.data() + at_, n);
    at_ += n;
    return Push(std::move(node));
  }
  bool Integer(int64_t v) {
    Node node = New(Type::kInt);
    if (node) node->integer = v;
    return Push(std::move(node));
  }
  bool Long(size_t length_bytes) {
    if (!Need(length_bytes)) return false;
    uint64_t n = Unsigned(length_bytes);
    if (n > 8) return Fail(op_at_, "an integer of " + std::to_string(n) + " bytes, beyond 64 bits");
    if (!Need(n)) return false;
    uint64_t v = Unsigned(n);
    if (n > 0 && n < 8 && (v >> (8 * n - 1)) & 1) v |= ~uint64_t{0} << (8 * n);  // sign-extend
    return Integer(static_cast<int64_t>(v));
  }
  bool Memo(uint64_t index) {
    if (stack_.empty()) return Fail(op_at_, "memoizes an empty stack");
    memo_[index] = stack_.back();
    return true;
  }
  bool Fetch(uint64_t index) {
    auto it = memo_.find(index);
    if (it == memo_.end())
      return Fail(op_at_, "fetches memo entry " + std::to_string(index) + ", which was never stored");
    stack_.push_back(it->second);
    return true;
  }
  bool Step(unsigned char op);

  std::string_view data_;
  const PickleLimits& limits_;
  PickleError* error_;
  size_t at_ = 0, op_at_ = 0;
  uint64_t values_ = 0;
  std::vector<Node> stack_;
  std::vector<size_t> marks_;
  std::unordered_map<uint64_t, Node> memo_;
  bool too_deep_ = false;
};

bool Unpickler::Step(unsigned char op) {
  std::vector<Node> items;
  Node a, b, c;
  switch (op) {
    case 0x95:  // FRAME: a length hint, nothing to build
      if (!Need(8)) return false;
      at_ += 8;
      return true;
    case '(': marks_.push_back(stack_.size()); return true;
    case 'N': return Push(New(Type::kNone));
    case 0x88:
    case 0x89: {
      Node node = New(Type::kBool);
      if (node) node->boolean = op == 0x88;
      return Push(std::move(node));
    }
    case 'J': return Need(4) && Integer(static_cast<int32_t>(Unsigned(4)));
    case 'K': return Need(1) && Integer(static_cast<int64_t>(Unsigned(1)));
    case 'M': return Need(2) && Integer(static_cast<int64_t>(Unsigned(2)));
    case 0x8a: return Long(1);
    case 0x8b: return Long(4);
    case 'G': {
      if (!Need(8)) return false;
      uint64_t bits = 0;
      for (int k = 0; k < 8; ++k)
        bits = bits << 8 | static_cast<unsigned char>(data_[at_ + k]);  // big-endian
      at_ += 8;
      Node node = New(Type::kFloat);
      if (node) std::memcpy(&node->number, &bits, sizeof bits);
      return Push(std::move(node));
    }
    case 0x8c: return Text(Type::kString, 1);  // SHORT_BINUNICODE
    case 'X': return Text(Type::kString, 4);   // BINUNICODE
    case 0x8d: return Text(Type::kString, 8);  // BINUNICODE8
    case 'U': return Text(Type::kBytes, 1);    // SHORT_BINSTRING (Python 2 str)
    case 'T': return Text(Type::kBytes, 4);    // BINSTRING
    case 'C': return Text(Type::kBytes, 1);    // SHORT_BINBYTES
    case 'B': return Text(Type::kBytes, 4);    // BINBYTES
    case 0x8e: return Text(Type::kBytes, 8);   // BINBYTES8
    case 0x96: return Text(Type::kBytes, 8);   // BYTEARRAY8
    case ']': return Push(New(Type::kList));
    case '}': return Push(New(Type::kDict));
    case 0x8f: return Push(New(Type::kSet));
    case ')': return Push(New(Type::kTuple));
    case 'l': return PopMark(&items) && Sequence(Type::kList, std::move(items));
    case 't': return PopMark(&items) && Sequence(Type::kTuple, std::move(items));
    case 0x91: return PopMark(&items) && Sequence(Type::kSet, std::move(items));  // FROZENSET
    case 0x85: return Pop(&a) && Sequence(Type::kTuple, {a});
    case 0x86: return Pop(&b) && Pop(&a) && Sequence(Type::kTuple, {a, b});
    case 0x87: return Pop(&c) && Pop(&b) && Pop(&a) && Sequence(Type::kTuple, {a, b, c});
    case 'd': {
      if (!PopMark(&items)) return false;
      if (!Push(New(Type::kDict))) return false;
      return SetItems(items);
    }
    case 'a': return Pop(&a) && Append({a});
    case 'e': return PopMark(&items) && Append(items);
    case 's': return Pop(&b) && Pop(&a) && SetItems({a, b});
    case 'u': return PopMark(&items) && SetItems(items);
    case 0x90: {  // ADDITEMS
      if (!PopMark(&items)) return false;
      Node set;
      if (!Target(Type::kSet, &set)) return false;
      for (const auto& item : items) set->items.push_back(Place(set.get(), item));
      return CheckDepth();
    }
    case '0': return Pop(&a);
    case '1': return PopMark(&items);
    case '2':
      if (stack_.empty()) return Fail(op_at_, "DUP of an empty stack");
      stack_.push_back(stack_.back());
      return true;
    case 0x94: return Memo(memo_.size());
    case 'q': return Need(1) && Memo(Unsigned(1));
    case 'r': return Need(4) && Memo(Unsigned(4));
    case 'h': return Need(1) && Fetch(Unsigned(1));
    case 'j': return Need(4) && Fetch(Unsigned(4));
    case 0x97:
    case 0x98: return Fail(op_at_, "out-of-band buffers (pickle protocol 5 buffers) are not read");
    default: break;
  }
  if (const char* code = CodeOpcode(op))
    return Fail(op_at_, std::string("opcode ") + code +
                            " names or calls code, which oomlens never runs: a memory snapshot holds only "
                            "plain data, so this pickle is something else");
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02x", op);
  return Fail(op_at_, std::string("opcode ") + hex +
                          " is not one of plain data's (protocol 0 text opcodes are not read)");
}

}  // namespace

bool ReadPickle(std::string_view data, const PickleLimits& limits, PickleRef* out, PickleError* error) {
  *error = PickleError{};  // a caller may reuse one error for several reads
  return Unpickler(data, limits, error).Run(out);
}

}  // namespace oomlens
