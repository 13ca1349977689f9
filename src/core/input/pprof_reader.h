// Reads a pprof profile (google/pprof's profile.proto, the format of JAX's
// save_device_memory_profile once gunzipped): the samples with their values and
// labels, the locations, functions and string table, and nothing else. A small
// protobuf wire reader, bounded by its input: every count is at most the bytes
// that hold it, every string index is checked before use, and a field of the
// wrong wire type or a length past the end is refused with its offset.
#ifndef OOMLENS_CORE_INPUT_PPROF_READER_H_
#define OOMLENS_CORE_INPUT_PPROF_READER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace oomlens {

struct PprofLabel {
  int64_t key = 0, str = 0, num = 0;  ///< key and str index the string table
};

struct PprofSample {
  std::vector<uint64_t> locations;  ///< location ids, the innermost frame first
  std::vector<int64_t> values;      ///< one per sample type
  std::vector<PprofLabel> labels;
};

struct PprofLine {
  uint64_t function = 0;
  int64_t line = 0;
};

struct PprofLocation {
  uint64_t id = 0;
  std::vector<PprofLine> lines;  ///< inlined calls, the innermost first
};

struct PprofFunction {
  uint64_t id = 0;
  int64_t name = 0, filename = 0;  ///< index the string table
};

struct PprofProfile {
  std::vector<std::pair<int64_t, int64_t>> sample_types;  ///< (type, unit), indexing the string table
  std::vector<PprofSample> samples;
  std::vector<PprofLocation> locations;
  std::vector<PprofFunction> functions;
  std::vector<std::string> strings;

  /// The string at index, "" when the index is out of range.
  std::string_view String(int64_t index) const;
};

/// Whether data starts as a profile does: its first field a sample type (field 1,
/// a short message whose first field is a varint). A log never starts so.
bool LooksLikePprof(std::string_view head);

/// Samples, locations, functions and strings one profile may hold (a device memory
/// profile of a busy job holds thousands).
constexpr uint64_t kMaxPprofEntries = 5'000'000;

/// Reads a whole profile. False, with *offset and *error, for anything that is
/// no well-formed profile.
bool ReadPprof(std::string_view data, PprofProfile* out, uint64_t* offset, std::string* error);

}  // namespace oomlens

#endif  // OOMLENS_CORE_INPUT_PPROF_READER_H_
