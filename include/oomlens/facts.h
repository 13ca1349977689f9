// Facts: the numbers and names oomlens reads off a message, typed by one registry.
//
// A signature's named group (?P<free_bytes>...) writes the fact "free_bytes"; the
// registry says it is a size, so "147.64M" becomes 154811924 bytes and the printed
// text is kept for evidence. A fact the log did not print is absent, never zero.
#ifndef OOMLENS_FACTS_H_
#define OOMLENS_FACTS_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace oomlens {

/// How a fact's text is read and how it is printed.
enum class FactType {
  kSize,      ///< bytes, e.g. "29.49G"
  kCount,     ///< a whole number, e.g. an allocation count
  kRatio,     ///< a real number, e.g. 0.35 (derived)
  kText,      ///< a name, e.g. a program
  kIdentity,  ///< replica, partition, host, device or rank: who printed the event
};

/// One entry of the fact registry.
struct FactInfo {
  std::string name;
  FactType type;
  bool derived;  ///< computed by oomlens, never read from a log
  std::string description;
  /// A size that may be below zero as printed (free minus request); every other
  /// size read from a log is an amount of memory, and a negative one is refused.
  bool signed_size = false;
};

/// Every fact signatures may capture and rules may test, sorted by name.
const std::vector<FactInfo>& FactRegistry();

/// Returns the registry entry for name, or nullptr when there is none.
const FactInfo* FindFact(std::string_view name);

/// A fact's value. For kSize and kCount, integer is authoritative.
struct FactValue {
  FactType type = FactType::kText;
  int64_t integer = 0;
  double number = 0;
  double tolerance = 0;  ///< rounding of the printed value (0 when exact)
  std::string text;      ///< as printed in the log (or formatted, for derived facts)
};

/// Facts by name (sorted, so output is deterministic).
using Facts = std::map<std::string, FactValue>;

/// Reads text as the fact name says. Returns false and sets *error when the
/// text is not a valid value of that fact (e.g. "9999999999999999999999G").
/// decimal_units reads "268.96MB" as 268.96e6 bytes (Pallas estimates) instead of binary.
bool MakeFact(const FactInfo& info, std::string_view text, FactValue* value, std::string* error,
              bool decimal_units = false);

/// The fields an allocation of a listing may have (size_bytes, shape, operator ...),
/// sorted by name. Typed like facts.
const std::vector<FactInfo>& AllocationFields();

/// Returns the allocation field named name, or nullptr.
const FactInfo* FindAllocationField(std::string_view name);

}  // namespace oomlens

#endif  // OOMLENS_FACTS_H_
