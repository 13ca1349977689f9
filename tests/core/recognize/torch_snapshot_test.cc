// PyTorch memory snapshots to events, on the synthetic snapshots of
// testdata/records (written by tests/gen/torch_snapshots.py with Python's pickle,
// in the layout torch/cuda/memory.py documents) and on layouts written inline.
#include "core/recognize/torch_snapshot.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "core/analyze/allocation_summary.h"
#include "core/input/line_reader.h"
#include "tests/core/pickled.h"

namespace oomlens {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;
constexpr int64_t kGiB = int64_t{1} << 30;

std::string ReadTestdata(const std::string& name) {
  std::ifstream in(std::string(OOMLENS_SOURCE_DIR) + "/testdata/records/" + name, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The value of a pickle; fails the test when it is not read.
PickleRef Unpickled(const std::string& data) {
  PickleRef root;
  PickleError refused;
  EXPECT_TRUE(ReadPickle(data, {}, &root, &refused)) << refused.offset << ": " << refused.message;
  return root;
}

// The events of a pickled snapshot; fails the test when it is not read.
SnapshotEvents Read(const std::string& data) {
  SnapshotEvents out;
  PickleRef root = Unpickled(data);
  if (!root) return out;
  std::string error;
  EXPECT_TRUE(ReadTorchSnapshot(*root, "snap.pickle", 3, &out, &error)) << error;
  return out;
}

int64_t Bytes(const Event& e, const std::string& fact) {
  auto it = e.facts.find(fact);
  return it == e.facts.end() ? -1 : it->second.integer;
}

TEST(TorchSnapshot, TheLastOomOfADeviceWithTheSegmentsFiguresExactly) {
  SnapshotEvents read = Read(ReadTestdata("fragmented.pickle"));
  ASSERT_EQ(read.events.size(), 1u);
  const Event& e = read.events[0];
  EXPECT_EQ(e.kind, "pytorch_cuda");
  EXPECT_TRUE(e.joins.empty());  // a failure of its own, not a memory record
  EXPECT_TRUE(e.record);
  EXPECT_EQ(e.device, "GPU 0");
  EXPECT_EQ(e.where.input, "snap.pickle");
  EXPECT_EQ(e.where.line, 0u);
  EXPECT_EQ(e.input_index, 3);
  EXPECT_EQ(Bytes(e, "requested_bytes"), 200 * kMiB);
  EXPECT_EQ(Bytes(e, "free_bytes"), 90 * kMiB);
  EXPECT_EQ(Bytes(e, "reserved_bytes"), 6 * 512 * kMiB);
  EXPECT_EQ(Bytes(e, "allocated_bytes"), 6 * 452 * kMiB);
  EXPECT_EQ(Bytes(e, "reserved_unallocated_bytes"), 6 * 60 * kMiB);
  EXPECT_EQ(Bytes(e, "segment_count"), 6);
  EXPECT_EQ(Bytes(e, "trace_oom_count"), 1);
  EXPECT_EQ(e.facts.count("expandable_segments"), 0u);  // off in its settings
  EXPECT_EQ(e.facts.count("awaiting_free_bytes"), 0u);  // absent, never zero
  ASSERT_EQ(e.allocations.size(), 18u);                 // every block: 3 per segment
  const Facts& first = e.allocations[0].fields;
  EXPECT_EQ(first.at("size_bytes").integer, 400 * kMiB);
  EXPECT_EQ(first.at("state").text, "allocated");
  EXPECT_EQ(first.at("owner").text, "/home/ml/proj/model.py:88 attention");  // past C++ and torch frames
  EXPECT_EQ(first.at("offset").text, "0x7f0000000000");
  const Facts& hole = e.allocations[1].fields;
  EXPECT_EQ(hole.at("state").text, "free");
  EXPECT_EQ(hole.count("owner"), 0u);
}

TEST(TorchSnapshot, SettingsGraphPoolsAndAPackagesFrame) {
  // gzip is the scanner's to undo; this one is read after it
  std::string data = Pickled(
      "(lambda f: {\"segments\": [{\"device\": 0, \"total_size\": 3 << 30, \"is_expandable\": False, "
      "\"segment_pool_id\": (1, 3), \"blocks\": [{\"size\": 3 << 30, \"state\": \"active_allocated\", "
      "\"frames\": f}]}], \"device_traces\": [[{\"action\": \"oom\", \"size\": 1 << 30, \"device_free\": "
      "5}]], "
      "\"allocator_settings\": {\"expandable_segments\": True, \"PYTORCH_CUDA_ALLOC_CONF\": "
      "\"expandable_segments:True\"}})([{\"filename\": \"/x/lib/python3.11/site-packages/transformers/"
      "trainer.py\", \"line\": 640, \"name\": \"step\"}])",
      5);
  SnapshotEvents read = Read(data);
  ASSERT_EQ(read.events.size(), 1u);
  const Event& e = read.events[0];
  EXPECT_EQ(e.facts.at("expandable_segments").text, "on");
  EXPECT_EQ(e.facts.at("alloc_conf").text, "expandable_segments:True");
  EXPECT_EQ(Bytes(e, "graph_pool_bytes"), 3 * kGiB);
  EXPECT_EQ(e.allocations[0].fields.at("owner").text, "transformers/trainer.py:640 step");
}

TEST(TorchSnapshot, EachDeviceApartAndTheHealthyOnesAsMemoryHeld) {
  SnapshotEvents read = Read(ReadTestdata("two-devices.pickle"));
  ASSERT_EQ(read.events.size(), 2u);
  const Event& healthy = read.events[0];
  EXPECT_EQ(healthy.kind, "memory_state");
  EXPECT_EQ(healthy.device, "GPU 0");
  EXPECT_EQ(healthy.joins, std::vector<std::string>{"pytorch_"});
  EXPECT_EQ(Bytes(healthy, "reserved_bytes"), 1 * kGiB);
  EXPECT_EQ(healthy.facts.count("requested_bytes"), 0u);
  const Event& e = read.events[1];
  EXPECT_EQ(e.kind, "pytorch_cuda");
  EXPECT_EQ(e.device, "GPU 1");
  EXPECT_EQ(Bytes(e, "reserved_bytes"), 7 * kGiB + 20 * kMiB);  // device 0's segment is not counted
  EXPECT_EQ(Bytes(e, "allocated_bytes"), 6 * kGiB);
  EXPECT_EQ(Bytes(e, "awaiting_free_bytes"), 1 * kGiB);
  EXPECT_EQ(Bytes(e, "reserved_unallocated_bytes"), 1 * kGiB + 20 * kMiB);
}

TEST(TorchSnapshot, TheOlderLayoutAListOfSegmentsWithHistory) {
  SnapshotEvents read = Read(ReadTestdata("legacy-history.pickle"));
  ASSERT_EQ(read.events.size(), 1u);  // no trace: memory held, no failed request to tell
  const Event& held = read.events[0];
  EXPECT_EQ(held.kind, "memory_state");
  EXPECT_EQ(Bytes(held, "reserved_bytes"), 1 * kGiB);
  EXPECT_EQ(Bytes(held, "allocated_bytes"), 600 * kMiB);
  EXPECT_EQ(held.allocations[0].fields.at("owner").text, "/home/ml/proj/model.py:131 mlp");
  // a block's owner is the last entry of its history
  std::string data = Pickled(
      "{\"segments\": [{\"total_size\": 4096, \"blocks\": [{\"size\": 4096, \"state\": \"active_allocated\", "
      "\"history\": [{\"real_size\": 4096, \"frames\": [{\"filename\": \"old.py\", \"line\": 1, \"name\": "
      "\"a\"}]}, {\"real_size\": 4096, \"frames\": [{\"filename\": \"new.py\", \"line\": 2, \"name\": "
      "\"b\"}]}]}]}], \"device_traces\": [[{\"action\": \"oom\", \"size\": 8192}]]}",
      2);
  SnapshotEvents with_history = Read(data);
  ASSERT_EQ(with_history.events.size(), 1u);
  EXPECT_EQ(with_history.events[0].allocations[0].fields.at("owner").text, "new.py:2 b");
  EXPECT_EQ(with_history.events[0].facts.count("free_bytes"), 0u);  // no device_free recorded
}

TEST(TorchSnapshot, OwnerFrameSkipsNativeAndPyTorchFrames) {
  auto owner = [](const std::string& frames) {
    PickleRef root = Unpickled(Pickled(frames, 4));
    return root ? OwnerFrame(root.get()) : "";
  };
  EXPECT_EQ(
      owner("[{\"filename\": \"??\", \"line\": 0, \"name\": \"x\"}, {\"filename\": \"/a/torch/"
            "functional.py\", \"line\": 9, \"name\": \"f\"}, {\"filename\": \"/w/run.py\", \"line\": 7, "
            "\"name\": \"main\"}]"),
      "/w/run.py:7 main");
  // only PyTorch's own frames: the innermost Python one
  EXPECT_EQ(owner("[{\"filename\": \"alloc.cpp\", \"line\": 3, \"name\": \"m\"}, {\"filename\": \"/a/torch/"
                  "nn/linear.py\", \"line\": 116, \"name\": \"forward\"}]"),
            "/a/torch/nn/linear.py:116 forward");
  EXPECT_EQ(owner("[{\"filename\": \"alloc.cpp\", \"line\": 3, \"name\": \"m\"}]"), "alloc.cpp:3 m");
  EXPECT_EQ(owner("[]"), "");
}

// A crafted snapshot's addresses and sizes at int64's ends (the pickle fuzzer's
// find: a negative address under a block of 2^62 bytes) are read without wrapping.
TEST(TorchSnapshot, AddressesAtTheEndsOfInt64DoNotWrap) {
  for (const char* address : {"-(2**63)", "2**63 - 1", "-1"}) {
    SnapshotEvents read = Read(Pickled(std::string("{\"segments\": [{\"address\": ") + address +
                                           ", \"total_size\": 2**62, \"blocks\": [{\"size\": 2**62, "
                                           "\"state\": \"active_allocated\"}, {\"size\": 2**62, "
                                           "\"state\": \"inactive\"}, {\"size\": 2**62, \"state\": "
                                           "\"inactive\"}]}]}",
                                       4));
    ASSERT_EQ(read.events.size(), 1u) << address;
    EXPECT_EQ(Bytes(read.events[0], "reserved_bytes"), int64_t{1} << 62) << address;
  }
}

TEST(TorchSnapshot, RefusesWhatIsNoSnapshotSayingWhere) {
  auto error_of = [](const std::string& expression) {
    PickleRef root = Unpickled(Pickled(expression, 4));
    SnapshotEvents out;
    std::string error;
    EXPECT_FALSE(root && ReadTorchSnapshot(*root, "x", 0, &out, &error)) << expression;
    return error;
  };
  EXPECT_NE(error_of("{\"weights\": [1, 2]}").find("no PyTorch memory snapshot"), std::string::npos);
  EXPECT_NE(error_of("[1, 2]").find("segment 0 is not a dict"), std::string::npos);
  EXPECT_NE(error_of("{\"segments\": [{\"total_size\": 5, \"blocks\": [{\"size\": \"big\", \"state\": "
                     "\"inactive\"}]}]}")
                .find("segment 0 block 0 has no size and state"),
            std::string::npos);
  EXPECT_NE(error_of("{\"segments\": [{\"total_size\": -5, \"blocks\": []}]}").find("segment 0"),
            std::string::npos);
  // a crafted snapshot of 200,000 devices took 3.4 GB as as many records: one process has a few
  EXPECT_NE(
      error_of("{\"segments\": [{\"device\": d, \"total_size\": 1, \"blocks\": []} for d in range(1025)]}")
          .find("segment 1024 is on a device past the 1024"),
      std::string::npos);
  EXPECT_NE(error_of("{\"segments\": [], \"device_traces\": [[{\"action\": \"oom\", \"size\": 1}]] * 1025}")
                .find("device trace 1024 is past the 1024"),
            std::string::npos);
}

}  // namespace
}  // namespace oomlens

namespace oomlens {
namespace {

// A busy device: 3,000 segments (past the pickler's batches of 1,000), each of
// three blocks whose frames are their own list, fetched again by the trace entry
// that allocated it, as PyTorch's snapshots share them.
const char kBusy[] =
    "(lambda sites: (lambda blocks: {\"segments\": [{\"device\": s % 2, \"address\": s << 24, "
    "\"total_size\": 3 << 20, \"segment_pool_id\": (0, 0), \"blocks\": blocks[3 * s:3 * s + 3]} "
    "for s in range(3000)], \"device_traces\": [[{\"action\": \"alloc\", \"addr\": b[\"address\"], "
    "\"size\": b[\"size\"], \"frames\": b[\"frames\"]} for b in blocks if b[\"state\"] != \"inactive\"] + "
    "[{\"action\": \"oom\", \"size\": 5 << 20, \"device_free\": 1 << 20, \"frames\": sites[0]}], []], "
    "\"allocator_settings\": {\"expandable_segments\": False}})("
    "[{\"address\": (k // 3 << 24) + (k % 3 << 20), \"size\": 1 << 20, "
    "\"state\": \"inactive\" if k % 3 == 2 else \"active_allocated\", "
    "\"frames\": list(sites[k % 7])} for k in range(9000)]))("
    "[[{\"filename\": \"/home/ml/train.py\", \"line\": 40 + s, \"name\": \"step\"}] for s in range(7)])";

SnapshotEvents Streamed(const std::string& data, const PickleLimits& limits, PickleError* refused,
                        std::string* error) {
  StringSource source(data);
  SnapshotEvents out;
  uint64_t bytes = 0;
  auto summarizer = [] { return std::make_unique<ListingSummarizer>(kMaxAllocationsPerReport); };
  bool ok = ReadTorchSnapshotStream("", &source, limits, summarizer, "snap.pickle", 3, &out, &bytes, refused,
                                    error);
  EXPECT_TRUE(!ok || bytes == data.size()) << bytes;
  return out;
}

TEST(TorchSnapshotStream, ReadsWhatTheWholeTreeReadsInEveryProtocol) {
  for (int protocol : {2, 4, 5}) {
    std::string data = Pickled(kBusy, protocol);
    ASSERT_GT(data.size(), 10000u) << "python3 wrote no pickle";
    SnapshotEvents whole = Read(data);
    PickleError refused;
    std::string error;
    SnapshotEvents streamed = Streamed(data, {}, &refused, &error);
    ASSERT_TRUE(error.empty() && refused.message.empty())
        << refused.offset << ": " << refused.message << error;
    ASSERT_EQ(streamed.events.size(), 2u);
    ASSERT_EQ(whole.events.size(), 2u);
    for (size_t d = 0; d < 2; ++d) {
      const Event &a = whole.events[d], &b = streamed.events[d];
      EXPECT_EQ(a.kind, b.kind);
      EXPECT_EQ(a.facts.size(), b.facts.size()) << protocol;
      for (const auto& [name, value] : a.facts) EXPECT_EQ(b.facts.at(name).text, value.text) << name;
      for (const auto& [name, value] : a.listing_facts)
        EXPECT_EQ(b.listing_facts.at(name).text, value.text) << name;
      EXPECT_EQ(a.allocations.size(), b.allocations.size());
    }
    const Event& oom = streamed.events[0];
    EXPECT_EQ(oom.kind, "pytorch_cuda");
    EXPECT_EQ(Bytes(oom, "segment_count"), 1500);
    EXPECT_EQ(Bytes(oom, "never_freed_count"), 3000) << "every allocated block of GPU 0, by its trace entry";
    EXPECT_EQ(oom.listing_facts.at("allocation_count").integer, 4500);
    EXPECT_NE(oom.listing_facts.at("top_owner").text.find("train.py:4"), std::string::npos);
    EXPECT_EQ(oom.allocations[0].fields.at("segment").text, "0x0") << "the first segment's place, by address";
  }
}

// What a streamed read holds at once is what it has not let go of: a snapshot whose
// whole tree is past the limit is read within it.
TEST(TorchSnapshotStream, HoldsFarFewerValuesThanTheSnapshotHas) {
  std::string data = Pickled(kBusy, 4);
  PickleLimits few;
  few.max_values = 20000;  // the tree holds about 80,000
  PickleRef root;
  PickleError refused;
  EXPECT_FALSE(ReadPickle(data, few, &root, &refused));
  EXPECT_TRUE(refused.too_many_values);
  std::string error;
  refused = PickleError{};
  SnapshotEvents streamed = Streamed(data, few, &refused, &error);
  EXPECT_TRUE(refused.message.empty()) << refused.offset << ": " << refused.message;
  ASSERT_EQ(streamed.events.size(), 2u);

  // One expandable segment of a single device, and its one trace: lists of one item
  // are pickled without a MARK, and the blocks of one segment are many. Each block
  // has a frames list of its own, of frames shared by all (PyTorch symbolizes each
  // frame once).
  std::string one = Pickled(
      "(lambda sites: {\"segments\": [{\"device\": 0, \"address\": 0, \"total_size\": 30000 << 20, "
      "\"is_expandable\": True, \"blocks\": [{\"address\": k << 20, \"size\": 1 << 20, \"state\": "
      "\"active_allocated\", \"frames\": [sites[k % 5]]} for k in range(30000)]}], \"device_traces\": "
      "[[{\"action\": \"alloc\", \"addr\": k << 20, \"size\": 1 << 20} for k in range(20000)]]})"
      "([{\"filename\": \"/home/ml/train.py\", \"line\": s, \"name\": \"step\"} for s in range(5)])",
      4);
  refused = PickleError{};
  streamed = Streamed(one, few, &refused, &error);
  EXPECT_TRUE(refused.message.empty()) << refused.offset << ": [" << refused.message << "] " << error;
  ASSERT_EQ(streamed.events.size(), 1u);
  EXPECT_EQ(streamed.events[0].listing_facts.at("allocation_count").integer, 30000);
  EXPECT_EQ(Bytes(streamed.events[0], "never_freed_count"), 20000);
  EXPECT_EQ(streamed.events[0].facts.at("expandable_segments").text, "on");
}

// A block is let go once read: a pickle that fetches one again is refused, saying so.
TEST(TorchSnapshotStream, RefusesAPickleThatFetchesABlockItLetGo) {
  std::string data = Pickled(
      "(lambda b: {\"segments\": [{\"total_size\": 1, \"blocks\": [b]}], \"again\": b})"
      "({\"size\": 1, \"state\": \"inactive\"})",
      4);
  PickleError refused;
  std::string error;
  Streamed(data, {}, &refused, &error);
  EXPECT_NE(refused.message.find("already read and let go"), std::string::npos) << refused.message;
}

}  // namespace
}  // namespace oomlens
