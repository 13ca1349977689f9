// A PyTorch memory snapshot (torch.cuda.memory._snapshot(), the pickle
// _dump_snapshot() writes) as events: the allocator's own record of what held each
// device. Each device whose trace recorded an OOM gives one event of
// kind pytorch_cuda, with the request and the free memory of its last OOM, and the
// segments' figures (reserved, allocated, cached free, awaiting free, CUDA-graph
// pools, the settings in force); its blocks become the event's listing, each owned
// by the frame that allocated it, so the listing's summary names the top holder and
// the largest free block. The layout is the one documented in torch/cuda/memory.py
// (`_snapshot`): a dict of segments, device_traces and allocator_settings, or the
// older list of segments whose blocks keep a history.
#ifndef OOMLENS_CORE_RECOGNIZE_TORCH_SNAPSHOT_H_
#define OOMLENS_CORE_RECOGNIZE_TORCH_SNAPSHOT_H_

#include <string>
#include <vector>

#include "core/input/pickle_reader.h"
#include "core/model/event.h"
#include "core/model/listing_sink.h"

namespace oomlens {

/// What a snapshot held: one event per device, of kind pytorch_cuda when its trace
/// recorded an OOM, else of kind memory_state (a snapshot taken by hand, at the
/// exception, or without history recording): memory held, which joins the PyTorch
/// failure of the same scan it was taken for (JoinMemoryRecords).
struct SnapshotEvents {
  std::vector<Event> events;
};

/// Reads the snapshot root (what ReadPickle read) of input. False, with *error,
/// when the pickle holds no snapshot (neither a dict with "segments" nor a list of
/// segments) or a field has the wrong type.
bool ReadTorchSnapshot(const PickleValue& root, const std::string& input, int input_index,
                       SnapshotEvents* out, std::string* error);

/// Reads a snapshot as it is unpickled from head and then source, in memory flat
/// in its blocks and trace entries: each block goes to a sink the factory makes per
/// device (analyze's ListingSummarizer summarises them and keeps the largest; none
/// given: every block is kept), each trace entry is summarised as it is read, both
/// are let go, and a frames list is held once as the frame that owns it. *bytes
/// counts what was read. False with *refused when the pickle is refused (its
/// offset), or with *error when it holds no snapshot.
bool ReadTorchSnapshotStream(std::string head, ByteSource* source, const PickleLimits& limits,
                             const ListingSinkFactory& listing, const std::string& input, int input_index,
                             SnapshotEvents* out, uint64_t* bytes, PickleError* refused, std::string* error);

/// The frame that owns an allocation: the innermost frame of the program's own code
/// (not PyTorch's, not C++), "models/llama.py:120 forward"; a package's path starts
/// after site-packages/. Frames are innermost first, as a snapshot keeps them.
/// Empty when no frame was recorded.
std::string OwnerFrame(const PickleValue* frames);

}  // namespace oomlens

#endif  // OOMLENS_CORE_RECOGNIZE_TORCH_SNAPSHOT_H_
