#include "core/run/record_input.h"

#include "core/analyze/allocation_summary.h"
#include "core/input/pickle_reader.h"
#include "core/input/pprof_reader.h"
#include "core/recognize/jax_profile.h"
#include "core/recognize/torch_snapshot.h"
#include "oomlens/size.h"

namespace oomlens {
namespace {

// A profile is read whole (its values take several times its size); a snapshot is
// streamed, its memory bounded by the values it holds at once (PickleLimits).
constexpr size_t kMaxProfileBytes = size_t{256} << 20;

bool ReadSnapshot(std::string head, ByteSource* source, const std::string& name, int input_index,
                  std::vector<Event>* events, uint64_t* bytes, RecordRefusal* refusal) {
  SnapshotEvents snapshot;
  PickleError refused;
  std::string error;
  auto summarizer = [] { return std::make_unique<ListingSummarizer>(kMaxAllocationsPerReport); };
  if (ReadTorchSnapshotStream(std::move(head), source, PickleLimits{}, summarizer, name, input_index,
                              &snapshot, bytes, &refused, &error)) {
    *events = std::move(snapshot.events);
    return true;
  }
  if (!error.empty()) {
    *refusal = {name, error, "give a file torch.cuda.memory._dump_snapshot() wrote"};
  } else {
    *refusal = {
        name + ": byte " + std::to_string(refused.offset), refused.message,
        refused.too_many_values
            ? "record a shorter trace: torch.cuda.memory._record_memory_history(max_entries=100000)"
            : "oomlens reads pickles of plain data only (a memory snapshot); nothing in this one ran"};
  }
  return false;
}

bool ReadProfile(const std::string& data, const std::string& name, int input_index,
                 std::vector<Event>* events, RecordRefusal* refusal) {
  PprofProfile profile;
  uint64_t offset = 0;
  std::string error;
  const char* help = "give a file jax.profiler.save_device_memory_profile() wrote";
  if (!ReadPprof(data, &profile, &offset, &error)) {
    *refusal = {name + ": byte " + std::to_string(offset), "not a well-formed pprof profile: " + error, help};
    return false;
  }
  Event record;
  if (!ReadJaxProfile(profile, name, input_index, &record, &error)) {
    *refusal = {name, error, help};
    return false;
  }
  events->push_back(std::move(record));
  return true;
}

}  // namespace

RecordFormat RecordFormatOf(std::string_view head) {
  if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x80 && head[1] >= 2 && head[1] <= 5)
    return RecordFormat::kTorchSnapshot;  // a pickle of protocol 2+: 0x80 never starts UTF-8 text
  if (LooksLikePprof(head)) return RecordFormat::kPprof;
  return RecordFormat::kNone;
}

const char* RecordName(RecordFormat format) {
  return format == RecordFormat::kPprof ? "memory profile" : "memory snapshot";
}

bool ReadRecord(RecordFormat format, ByteSource* source, std::string head, const std::string& name,
                int input_index, std::vector<Event>* events, uint64_t* bytes, RecordRefusal* refusal) {
  if (format == RecordFormat::kTorchSnapshot)
    return ReadSnapshot(std::move(head), source, name, input_index, events, bytes, refusal);
  std::string data = std::move(head), error;
  if (!ReadUpTo(source, kMaxProfileBytes + 1, &data, &error)) {
    *refusal = {name, "read failed after " + std::to_string(data.size()) + " bytes: " + error, ""};
    return false;
  }
  if (data.size() > kMaxProfileBytes) {
    *refusal = {name,
                std::string("a ") + RecordName(format) + " larger than " +
                    FormatSize(static_cast<int64_t>(kMaxProfileBytes)) + " is not read",
                "take the profile when fewer buffers are live"};
    return false;
  }
  *bytes = data.size();
  return ReadProfile(data, name, input_index, events, refusal);
}

}  // namespace oomlens
