#include "core/input/pickle_reader.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <unordered_map>

#include "core/input/line_reader.h"

namespace oomlens {

const PickleValue* PickleValue::Get(std::string_view key) const {
  for (const auto& [k, v] : pairs)
    if (k->type == Type::kString && k->text == key) return v.get();
  return nullptr;
}

namespace {

using Node = std::shared_ptr<PickleValue>;
using Type = PickleValue::Type;

// Values alive that one read made: what max_values bounds. Values a visitor took
// and the memo forgot are freed as the read goes on, and no longer count.
struct LiveValues {
  std::atomic<uint64_t> count{0};
};

template <class T>
struct Counting {
  using value_type = T;
  std::shared_ptr<LiveValues> live;
  explicit Counting(std::shared_ptr<LiveValues> values) : live(std::move(values)) {}
  template <class U>
  Counting(const Counting<U>& other) : live(other.live) {}  // NOLINT: rebinding, as allocators do
  T* allocate(size_t n) {
    live->count.fetch_add(1, std::memory_order_relaxed);
    return std::allocator<T>().allocate(n);
  }
  void deallocate(T* p, size_t n) {
    live->count.fetch_sub(1, std::memory_order_relaxed);
    std::allocator<T>().deallocate(p, n);
  }
};
template <class T, class U>
bool operator==(const Counting<T>& a, const Counting<U>& b) {
  return a.live == b.live;
}
template <class T, class U>
bool operator!=(const Counting<T>& a, const Counting<U>& b) {
  return a.live != b.live;
}

constexpr size_t kReadChunk = size_t{1} << 20;  // what a streamed read asks its source for at a time

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

// The memo: what MEMOIZE and PUT stored, by index. Python's pickler numbers them
// densely from 0, so an entry is 4 bytes in a vector: a handle of the value, which
// a table of the values the memo holds keeps once each (a snapshot of millions of
// blocks has an entry for each frames list, all held as a few owner frames). An
// index far past the others (a crafted PUT 4000000000) goes to a map instead of
// growing the vector to it.
class MemoTable {
 public:
  void Store(uint64_t index, const Node& value) {
    uint32_t handle = Hold(value);
    uint32_t* entry = Entry(index, true);
    if (*entry == 0) ++stored_;
    else Release(*entry);
    *entry = handle;
  }
  // The entry at index, or nullptr when nothing is stored there.
  const Node* Slot(int64_t index) const {
    const uint32_t* entry = index < 0 ? nullptr : const_cast<MemoTable*>(this)->Entry(uint64_t(index), false);
    return entry && *entry ? &values_[*entry] : nullptr;
  }
  // Stores another value where index holds value (a stand-in for it).
  void Replace(int64_t index, const Node& stand_in) {
    uint32_t handle = Hold(stand_in);
    uint32_t* entry = Entry(uint64_t(index), false);
    Release(*entry);
    *entry = handle;
  }
  void Forget(int64_t index) {  // counted still: Python's len(memo) never shrinks
    uint32_t* entry = index < 0 ? nullptr : Entry(uint64_t(index), false);
    if (!entry || *entry == 0) return;
    Release(*entry);
    *entry = 0;
  }
  // Entries ever stored: the index MEMOIZE stores at (Python's len(memo)).
  uint64_t Stored() const { return stored_; }

 private:
  uint32_t* Entry(uint64_t index, bool add) {
    if (index < dense_.size()) return &dense_[index];
    if (add && index == dense_.size()) return &dense_.emplace_back(0);
    auto it = sparse_.find(index);
    if (it != sparse_.end()) return &it->second;
    return add ? &sparse_[index] : nullptr;
  }
  uint32_t Hold(const Node& value) {
    if (value->handle == 0) {
      if (free_.empty()) {
        free_.push_back(static_cast<uint32_t>(values_.size()));
        values_.emplace_back();
        counts_.push_back(0);
      }
      value->handle = free_.back();
      free_.pop_back();
      values_[value->handle] = value;
    }
    ++counts_[value->handle];
    return value->handle;
  }
  void Release(uint32_t handle) {
    if (--counts_[handle] > 0) return;
    values_[handle]->handle = 0;
    values_[handle].reset();
    free_.push_back(handle);
  }

  std::deque<uint32_t> dense_;  // in chunks: no copy of millions of entries as it grows
  std::unordered_map<uint64_t, uint32_t> sparse_;
  std::vector<Node> values_ = std::vector<Node>(1);  // handle 0 is no value
  std::vector<uint32_t> counts_ = std::vector<uint32_t>(1);
  std::vector<uint32_t> free_;
  uint64_t stored_ = 0;
};

// The stack machine, one opcode at a time (no recursion: nesting costs no stack).
class Unpickler {
 public:
  Unpickler(std::string_view data, ByteSource* source, const PickleLimits& limits, PickleVisitor* visitor,
            PickleError* error)
      : data_(data), source_(source), limits_(limits), visitor_(visitor), error_(error) {
    if (source_) {
      buf_.assign(data.data(), data.size());
      data_ = buf_;
    }
  }

  bool Run(PickleRef* out) {
    if (!Need(2) || static_cast<unsigned char>(data_[0]) != 0x80)
      return Fail(0, "not a pickle of protocol 2 or later");
    int protocol = static_cast<unsigned char>(data_[1]);
    if (protocol < 2 || protocol > 5)
      return Fail(1, "pickle protocol " + std::to_string(protocol) + " is not 2 to 5");
    at_ = 2;
    while (at_ < data_.size() || Need(1)) {
      op_at_ = base_ + at_;
      unsigned char op = static_cast<unsigned char>(data_[at_++]);
      if (op == '.') {
        if (stack_.size() != 1 || !marks_.empty())
          return Fail(op_at_, "STOP with " + std::to_string(stack_.size()) + " values on the stack");
        *out = stack_.back();
        return true;
      }
      if (!Step(op)) return false;
    }
    if (!read_error_.empty()) return Fail(base_ + at_, "the input could not be read on: " + read_error_);
    return Fail(base_ + data_.size(), "the pickle ends without STOP (a truncated file?)");
  }
  uint64_t BytesRead() const { return base_ + data_.size(); }

 private:
  friend class ListView;
  bool Fail(uint64_t offset, const std::string& message) {
    error_->offset = offset;
    error_->message = message;
    return false;
  }
  // Makes n bytes after at_ readable, reading more of the source when there is one.
  bool Need(size_t n) {
    if (data_.size() - at_ >= n) return true;
    if (source_ && read_error_.empty()) {
      buf_.erase(0, at_);  // what was read is not kept: the input streams through
      base_ += at_;
      at_ = 0;
      while (buf_.size() < n) {
        size_t had = buf_.size();
        buf_.resize(had + std::max(kReadChunk, n - had));
        long got = source_->Read(buf_.data() + had, buf_.size() - had, &read_error_);
        buf_.resize(had + static_cast<size_t>(std::max(0L, got)));
        if (got <= 0) break;
      }
      data_ = buf_;
      if (data_.size() >= n) return true;
    }
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
    if (live_->count.load(std::memory_order_relaxed) >= limits_.max_values) return nullptr;
    auto node = std::allocate_shared<PickleValue>(Counting<PickleValue>(live_));
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
  // One step from the root toward a value under way: the container that holds it
  // (at stack position holder), the key it is under ("[]": an item of a list),
  // and where the container's pending items start on the stack.
  struct Link {
    size_t holder, region;
    std::string key;
  };
  bool MarkAt(size_t position) const { return std::binary_search(marks_.begin(), marks_.end(), position); }
  // The containers open from the root to the value at stack position target.
  // Python's pickler fills a container right after it makes it, in batches that
  // start with a MARK, or with one item (APPEND, SETITEM) where a batch would have
  // one; every earlier item of a batch is whole (one stack slot), so the value
  // under way in a batch is the one below the next MARK, else the last. A layout
  // this does not read (an item of a big tuple) gives no chain: its values are
  // simply kept, not shown to the visitor.
  bool Chain(size_t target, std::vector<Link>* chain) const {
    size_t h = 0;
    while (h < target) {
      const PickleValue& holder = *stack_[h];
      size_t s = h + 1;
      auto next = std::upper_bound(marks_.begin(), marks_.end(), s);
      size_t under_way = MarkAt(s) && next != marks_.end() && *next <= target ? *next - 1 : target;
      if (!MarkAt(s)) under_way = holder.type == Type::kDict ? s + 1 : s;  // its one item or pair
      if (holder.type == Type::kDict) {
        // a value stands at an odd place from s; an even one is a list's only item under way
        if ((under_way - s) % 2 == 0 && under_way > s && stack_[under_way - 1]->type == Type::kList)
          --under_way;
        if (under_way > target || (under_way - s) % 2 == 0 || stack_[under_way - 1]->type != Type::kString)
          return false;
        chain->push_back(Link{h, s, stack_[under_way - 1]->text});
      } else if (holder.type == Type::kList) {
        if (under_way > target) return false;
        chain->push_back(Link{h, s, "[]"});
      } else {
        return false;
      }
      h = under_way;
    }
    return h == target;
  }
  void Forget(const Node& item) {  // the memo lets go of a value a visitor took
    if (const Node* slot = memo_.Slot(item->memo); slot && *slot == item) memo_.Forget(item->memo);
  }
  bool Append(const std::vector<Node>& items);
  bool SetItems(std::vector<Node> items) {
    if (items.size() % 2 != 0) return Fail(op_at_, "SETITEMS with an odd number of values");
    Node dict;
    if (!Target(Type::kDict, &dict)) return false;
    for (size_t k = 0; k < items.size(); k += 2) {
      if (items[k] == dict || items[k + 1] == dict) return Fail(op_at_, "a dict that holds itself");
      if (visitor_ && items[k]->type == Type::kString) items[k + 1] = Compacted(items[k]->text, items[k + 1]);
      dict->pairs.emplace_back(Place(dict.get(), items[k]), Place(dict.get(), items[k + 1]));
    }
    return CheckDepth();
  }
  // The visitor's stand-in for a value (it and the memo hold that instead).
  Node Compacted(const std::string& key, const Node& value) {
    Node stand_in = std::const_pointer_cast<PickleValue>(visitor_->Compact(key, value));
    if (!stand_in || stand_in == value) return value;
    if (const Node* slot = memo_.Slot(value->memo); slot && *slot == value)
      memo_.Replace(value->memo, stand_in);
    return stand_in;
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
  // MEMOIZE stores at the count of entries ever stored (Python's len(memo), which
  // never shrinks: entries forgotten after a visitor took their value still count).
  bool Memo(uint64_t index) {
    if (stack_.empty()) return Fail(op_at_, "memoizes an empty stack");
    memo_.Store(index, stack_.back());
    if (stack_.back()->memo < 0) stack_.back()->memo = static_cast<int64_t>(index);
    return true;
  }
  bool Fetch(uint64_t index) {
    const Node* slot = memo_.Slot(static_cast<int64_t>(std::min<uint64_t>(index, INT64_MAX)));
    if (!slot)
      return Fail(op_at_,
                  "fetches memo entry " + std::to_string(index) +
                      ", which was never stored (or is a block or trace entry already read and let go)");
    stack_.push_back(*slot);
    return true;
  }
  bool Step(unsigned char op);

  std::string_view data_;
  ByteSource* source_;
  std::string buf_;         // a streamed read: the bytes not yet read, and a few before
  std::string read_error_;  // why the source stopped, if it failed
  uint64_t base_ = 0;       // bytes of the input before data_
  const PickleLimits& limits_;
  PickleVisitor* visitor_;
  PickleError* error_;
  size_t at_ = 0;
  uint64_t op_at_ = 0;
  std::shared_ptr<LiveValues> live_ = std::make_shared<LiveValues>();
  std::vector<Node> stack_;
  std::vector<size_t> marks_;
  MemoTable memo_;
  bool too_deep_ = false;
};

// The list at stack position p, as a visitor sees it.
class ListView : public PickleList {
 public:
  ListView(const Unpickler& u, size_t p) : u_(u), p_(p) {
    if (!u_.Chain(p_, &chain_)) chain_.clear();
    for (const auto& link : chain_) path_.push_back(link.key);
  }
  const std::vector<std::string>& Path() const override { return path_; }
  const PickleValue* Sibling(std::string_view key) const override {
    if (chain_.empty() || chain_.back().key == "[]") return nullptr;
    const auto& link = chain_.back();
    for (size_t k = link.region; k + 1 < p_; k += 2) {  // waiting on the stack, key then value
      const PickleValue& name = *u_.stack_[k];
      if (name.type == Type::kString && name.text == key) return u_.stack_[k + 1].get();
    }
    return u_.stack_[link.holder]->Get(key);
  }
  int64_t Index() const override { return chain_.empty() ? -1 : IndexOf(chain_.size() - 1, p_); }
  int64_t HolderIndex() const override {
    return chain_.size() < 2 ? -1 : IndexOf(chain_.size() - 2, chain_.back().holder);
  }
  bool IsRoot() const override { return p_ == 0; }
  const PickleValue& List() const override { return *u_.stack_[p_]; }

 private:
  // Where the value at stack position p, under link k, stands in its list.
  int64_t IndexOf(size_t k, size_t p) const {
    const auto& link = chain_[k];
    if (link.key != "[]") return -1;
    const PickleValue& list = *u_.stack_[link.holder];
    return static_cast<int64_t>(list.items.size() + list.taken + (p - link.region));
  }

  const Unpickler& u_;
  size_t p_;
  std::vector<Unpickler::Link> chain_;
  std::vector<std::string> path_;
};

bool Unpickler::Append(const std::vector<Node>& items) {
  Node list;
  if (!Target(Type::kList, &list)) return false;
  ListView view(*this, stack_.size() - 1);
  for (const auto& item : items) {
    if (item == list) return Fail(op_at_, "a list that holds itself");
    if (visitor_ && visitor_->Take(view, item)) {
      Forget(item);
      ++list->taken;
      continue;
    }
    list->items.push_back(Place(list.get(), item));
  }
  return CheckDepth();
}

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
      return SetItems(std::move(items));
    }
    case 'a': return Pop(&a) && Append({a});
    case 'e': return PopMark(&items) && Append(items);
    case 's': return Pop(&b) && Pop(&a) && SetItems({a, b});
    case 'u': return PopMark(&items) && SetItems(std::move(items));
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
    case 0x94: return Memo(memo_.Stored());
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
  return Unpickler(data, nullptr, limits, nullptr, error).Run(out);
}

bool ReadPickleStream(std::string head, ByteSource* source, const PickleLimits& limits,
                      PickleVisitor* visitor, PickleRef* out, uint64_t* bytes, PickleError* error) {
  *error = PickleError{};
  Unpickler unpickler(head, source, limits, visitor, error);
  bool ok = unpickler.Run(out);
  *bytes = unpickler.BytesRead();
  return ok;
}

}  // namespace oomlens
