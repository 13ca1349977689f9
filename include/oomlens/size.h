// Sizes as accelerator runtimes print them, turned into byte counts.
//
//   std::string error;
//   auto size = oomlens::ParseSize("29.49G", &error);
//   // size->bytes == 31664825795, size->tolerance == 0.005 * 2^30
//
// Units are binary (K = 1024) whatever the spelling: "M", "MB", "MiB".
// An exact count printed beside a rounded one wins:
// "3.95G (4,237,689,856 bytes)", "32.00MiB (33554432B)", "2.00GiB (rounded to 2147483648)".
#ifndef OOMLENS_SIZE_H_
#define OOMLENS_SIZE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace oomlens {

/// A byte count read from a log, with how far off the printed rounding may be.
struct Size {
  int64_t bytes = 0;
  /// Half a unit in the last printed digit; 0 for an exact byte count.
  double tolerance = 0;
};

/// Parses a printed size. Returns nullopt and sets *error (what is wrong) when
/// the text is not a size or does not fit in int64 bytes.
/// With decimal_units, K/M/G... mean powers of 1000 (for tools that print SI sizes).
std::optional<Size> ParseSize(std::string_view text, std::string* error, bool decimal_units = false);

/// Formats bytes the way XLA does: "147.64M", "29.49G", "0B", "-2.55G".
std::string FormatSize(int64_t bytes);

/// Formats a computed size (a difference, a ratio of sizes): as FormatSize when it
/// is a whole number of bytes int64 holds, else in E units ("14.00E"), never wrapped.
std::string FormatComputedSize(double bytes);

}  // namespace oomlens

#endif  // OOMLENS_SIZE_H_
