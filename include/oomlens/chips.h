// Accelerators oomlens knows by name, for --chip: their memory sharpens a
// diagnosis when the log does not print the capacity.
#ifndef OOMLENS_CHIPS_H_
#define OOMLENS_CHIPS_H_

#include <cstdint>
#include <optional>
#include <string>

namespace oomlens {

/// Memory of one device of a known chip ("v4", "v5e", "a100-80" ...), in bytes;
/// nullopt for an unknown name.
std::optional<int64_t> ChipCapacity(const std::string& chip);
/// The chip names ChipCapacity knows, comma-separated, for help texts.
std::string KnownChips();

}  // namespace oomlens

#endif  // OOMLENS_CHIPS_H_
