#include "core/run/record_input.h"

#include "core/input/pickle_reader.h"
#include "core/input/pprof_reader.h"
#include "core/recognize/jax_profile.h"
#include "core/recognize/torch_snapshot.h"
#include "oomlens/size.h"

namespace oomlens {
namespace {

// Records are read whole; their values take several times their size.
constexpr size_t kMaxSnapshotBytes = size_t{1} << 30;
constexpr size_t kMaxProfileBytes = size_t{256} << 20;

bool ReadSnapshot(const std::string& data, const std::string& name, int input_index,
                  std::vector<Event>* events, RecordRefusal* refusal) {
  PickleRef root;
  PickleError refused;
  if (!ReadPickle(data, PickleLimits{}, &root, &refused)) {
    *refusal = {
        name + ": byte " + std::to_string(refused.offset), refused.message,
        refused.too_many_values
            ? "record a shorter trace: torch.cuda.memory._record_memory_history(max_entries=100000)"
            : "oomlens reads pickles of plain data only (a memory snapshot); nothing in this one ran"};
    return false;
  }
  SnapshotEvents snapshot;
  std::string error;
  if (!ReadTorchSnapshot(*root, name, input_index, &snapshot, &error)) {
    *refusal = {name, error, "give a file torch.cuda.memory._dump_snapshot() wrote"};
    return false;
  }
  *events = std::move(snapshot.events);
  return true;
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
  size_t limit = format == RecordFormat::kPprof ? kMaxProfileBytes : kMaxSnapshotBytes;
  std::string data = std::move(head), error;
  if (!ReadUpTo(source, limit + 1, &data, &error)) {
    *refusal = {name, "read failed after " + std::to_string(data.size()) + " bytes: " + error, ""};
    return false;
  }
  if (data.size() > limit) {
    *refusal = {name,
                std::string("a ") + RecordName(format) + " larger than " +
                    FormatSize(static_cast<int64_t>(limit)) + " is not read",
                format == RecordFormat::kPprof
                    ? "take the profile when fewer buffers are live"
                    : "record less history (torch.cuda.memory._record_memory_history(max_entries=...))"};
    return false;
  }
  *bytes = data.size();
  return format == RecordFormat::kPprof ? ReadProfile(data, name, input_index, events, refusal)
                                        : ReadSnapshot(data, name, input_index, events, refusal);
}

}  // namespace oomlens
