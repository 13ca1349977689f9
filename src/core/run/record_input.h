// An input that is an allocator's record rather than a log, told by its first
// bytes: a PyTorch memory snapshot (a pickle) or a JAX device memory profile (a
// pprof protobuf), gzip or zstd too, into events: a snapshot streamed, a profile
// read whole within a bound.
#ifndef OOMLENS_CORE_RUN_RECORD_INPUT_H_
#define OOMLENS_CORE_RUN_RECORD_INPUT_H_

#include <string>
#include <string_view>
#include <vector>

#include "core/input/line_reader.h"
#include "core/model/event.h"

namespace oomlens {

enum class RecordFormat { kNone, kTorchSnapshot, kPprof };

/// Bytes of the start of an input that RecordFormatOf needs.
constexpr size_t kRecordHeadBytes = 3;

/// What the input's first bytes say it is (kNone: a log).
RecordFormat RecordFormatOf(std::string_view head);

/// How reports name an input of that format: "memory snapshot", "memory profile".
const char* RecordName(RecordFormat format);

/// Why a record was not read: where (the input, or input: byte N), what, what to do.
struct RecordRefusal {
  std::string where, message, help;
};

/// Reads the rest of source (head is what was read to tell the format) into the
/// record's events: failures (a snapshot's OOMs) and memory records (kind
/// memory_state). *bytes counts what was read. False with *refusal otherwise.
bool ReadRecord(RecordFormat format, ByteSource* source, std::string head, const std::string& name,
                int input_index, std::vector<Event>* events, uint64_t* bytes, RecordRefusal* refusal);

}  // namespace oomlens

#endif  // OOMLENS_CORE_RUN_RECORD_INPUT_H_
