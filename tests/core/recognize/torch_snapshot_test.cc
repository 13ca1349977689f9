// PyTorch memory snapshots to events, on the synthetic snapshots of
// testdata/records (written by tests/gen/torch_snapshots.py with Python's pickle,
// in the layout torch/cuda/memory.py documents) and on layouts written inline.
#include "core/recognize/torch_snapshot.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

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
