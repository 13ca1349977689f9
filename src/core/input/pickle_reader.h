// Reads Python pickles of plain data (the layout of PyTorch's memory snapshots,
// torch.cuda.memory._snapshot()), and nothing else: dicts, lists, tuples, sets,
// strings, bytes, integers, floats, booleans and None, protocols 2 to 5. Every
// opcode that names or calls code (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ,
// NEWOBJ, NEWOBJ_EX, EXT*, PERSID, BINPERSID) and out-of-band buffers are refused
// with the offset, so a crafted pickle runs nothing. Memo sharing is kept: a value
// stored once and fetched many times (PyTorch's frames) is one shared node. Read
// from a ByteSource with a visitor, a pickle is streamed: the visitor takes the
// bulk (a snapshot's blocks and trace entries) as each is built, and the reader
// keeps neither the input nor what was taken.
#ifndef OOMLENS_CORE_INPUT_PICKLE_READER_H_
#define OOMLENS_CORE_INPUT_PICKLE_READER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace oomlens {

class ByteSource;

struct PickleValue;
using PickleRef = std::shared_ptr<const PickleValue>;

/// One value of a pickle. Containers hold shared nodes; a dict keeps its pairs in
/// the order they were pickled.
struct PickleValue {
  enum class Type { kNone, kBool, kInt, kFloat, kString, kBytes, kList, kTuple, kDict, kSet };
  Type type = Type::kNone;
  bool boolean = false;
  int64_t integer = 0;                                 ///< kInt; an integer beyond int64 is refused
  double number = 0;                                   ///< kFloat
  std::string text;                                    ///< kString (UTF-8 as pickled) and kBytes
  std::vector<PickleRef> items;                        ///< kList, kTuple, kSet
  std::vector<std::pair<PickleRef, PickleRef>> pairs;  ///< kDict
  uint32_t depth = 0;   ///< levels of containers below it (0: a scalar or an empty container)
  bool placed = false;  ///< held by a container (while reading: from then on it may not change)
  int64_t memo = -1;    ///< while reading: the memo index that holds it (-1: none)
  uint64_t taken = 0;   ///< a list: items a visitor took instead of it (they count in indexes)
  uint32_t handle = 0;  ///< while reading: its place among the values the memo holds (0: none)

  /// The value of a dict for a string key, or nullptr.
  const PickleValue* Get(std::string_view key) const;
};

/// Bounds on what one pickle may build (a snapshot of a busy GPU is a few million
/// values; a crafted one must not take the machine).
struct PickleLimits {
  /// Values held at once, about 200 bytes each: 10 million take 2 GB (a busy GPU's
  /// snapshot read whole, with a 100,000-entry trace, is one or two million; 50
  /// million took 10 GB). Values a visitor took are no longer held.
  uint64_t max_values = 10'000'000;
  uint64_t max_string_bytes = uint64_t{1} << 30;  ///< one string or bytes object
  uint32_t max_depth = 1000;                      ///< nesting (a snapshot nests about six deep)
};

/// Why a pickle was refused: the offset of the opcode and what is wrong.
struct PickleError {
  uint64_t offset = 0;
  std::string message;
  bool too_many_values = false;  ///< refused for its size (max_values), not its form
};

/// Where the list an item goes into stands while a pickle is read.
class PickleList {
 public:
  virtual ~PickleList() = default;
  /// The keys from the root to the list: a dict's key, or "[]" for an item of a
  /// list (a snapshot's blocks: "segments", "[]", "blocks"). Empty when the list
  /// is the root or stands where no key names it.
  virtual const std::vector<std::string>& Path() const = 0;
  /// A field of the dict the list is a value of, set or still waiting on the
  /// stack (a segment's "device" while its blocks are read), or nullptr.
  virtual const PickleValue* Sibling(std::string_view key) const = 0;
  /// Where the list stands in the list that holds it (the device of a trace in
  /// device_traces), or -1.
  virtual int64_t Index() const = 0;
  /// Where the dict the list is a value of stands in its list (a segment's place
  /// in segments, while its blocks are read), or -1.
  virtual int64_t HolderIndex() const = 0;
  /// Whether the list is the pickle's root (the older snapshot layout's segments).
  virtual bool IsRoot() const = 0;
  /// The list itself (items taken are not in it).
  virtual const PickleValue& List() const = 0;
};

/// Sees values as they are read (ReadPickleStream).
class PickleVisitor {
 public:
  virtual ~PickleVisitor() = default;
  /// An item about to be appended to a list. True when the visitor took it: the
  /// list does not hold it and the memo forgets it (a later fetch of it fails).
  virtual bool Take(const PickleList& list, const PickleRef& item) = 0;
  /// A value about to be set in a dict under a string key: the visitor may give a
  /// smaller stand-in (a snapshot's frames list becomes the frame that owns it),
  /// which later fetches of the value from the memo get too.
  virtual PickleRef Compact(std::string_view key, PickleRef value) = 0;
};

/// Reads one pickle from the start of data. False, with *error, for any other
/// content: code, a truncated or malformed stream, limits passed.
bool ReadPickle(std::string_view data, const PickleLimits& limits, PickleRef* out, PickleError* error);

/// Reads one pickle from head (bytes already read) and then source, showing the
/// visitor each value as it is built (visitor may be null). *bytes counts what was
/// read. A read error of source is reported as an error at the offset it stopped.
bool ReadPickleStream(std::string head, ByteSource* source, const PickleLimits& limits,
                      PickleVisitor* visitor, PickleRef* out, uint64_t* bytes, PickleError* error);

}  // namespace oomlens

#endif  // OOMLENS_CORE_INPUT_PICKLE_READER_H_
