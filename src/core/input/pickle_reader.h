// Reads Python pickles of plain data (the layout of PyTorch's memory snapshots,
// torch.cuda.memory._snapshot()), and nothing else: dicts, lists, tuples, sets,
// strings, bytes, integers, floats, booleans and None, protocols 2 to 5. Every
// opcode that names or calls code (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ,
// NEWOBJ, NEWOBJ_EX, EXT*, PERSID, BINPERSID) and out-of-band buffers are refused
// with the offset, so a crafted pickle runs nothing. Memo sharing is kept: a value
// stored once and fetched many times (PyTorch's frames) is one shared node.
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

  /// The value of a dict for a string key, or nullptr.
  const PickleValue* Get(std::string_view key) const;
};

/// Bounds on what one pickle may build (a snapshot of a busy GPU is a few million
/// values; a crafted one must not take the machine).
struct PickleLimits {
  /// About 200 bytes held per value: 10 million take 2 GB (a busy GPU's snapshot with
  /// a 100,000-entry trace is one or two million; 50 million took 10 GB).
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

/// Reads one pickle from the start of data. False, with *error, for any other
/// content: code, a truncated or malformed stream, limits passed.
bool ReadPickle(std::string_view data, const PickleLimits& limits, PickleRef* out, PickleError* error);

}  // namespace oomlens

#endif  // OOMLENS_CORE_INPUT_PICKLE_READER_H_
