// The plain-data unpickler, on pickles Python's own pickle module writes (protocols
// 2, 4 and 5, memo sharing as PyTorch's snapshots have it), and on pickles that
// would run code, hold themselves or end early: refused with the offset.
#include "core/input/pickle_reader.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/core/pickled.h"

namespace oomlens {
namespace {

// A snapshot's shape: segments with blocks, each block's frames one shared list.
const char kSnapshot[] =
    "(lambda frames: {\"segments\": [{\"device\": 0, \"address\": 139637976, \"total_size\": 2097152, "
    "\"allocated_size\": 1048576, \"segment_type\": \"small\", \"blocks\": [{\"size\": 1048576, "
    "\"state\": \"active_allocated\", \"frames\": frames}, {\"size\": 1048576, \"state\": \"inactive\", "
    "\"frames\": frames}] * 500}], \"device_traces\": [[{\"action\": \"oom\", \"size\": 3221225472, "
    "\"device_free\": 1288490188, \"frames\": frames}]], \"allocator_settings\": {\"expandable_segments\": "
    "True, \"garbage_collection_threshold\": 0.0, \"max_split_size\": -1, \"big\": 2**62, \"neg\": -300}})"
    "([{\"filename\": \"train.py\", \"line\": 42, \"name\": \"step\"}])";

TEST(ReadPickle, ReadsASnapshotsLayoutInEveryProtocolWithSharedFrames) {
  for (int protocol : {2, 4, 5}) {
    std::string data = Pickled(kSnapshot, protocol);
    ASSERT_GT(data.size(), 100u) << "python3 wrote no pickle";
    PickleRef root;
    PickleError error;
    ASSERT_TRUE(ReadPickle(data, {}, &root, &error))
        << protocol << ": " << error.offset << ": " << error.message;
    ASSERT_EQ(root->type, PickleValue::Type::kDict);
    const PickleValue* segments = root->Get("segments");
    ASSERT_TRUE(segments && segments->items.size() == 1);
    const PickleValue& segment = *segments->items[0];
    EXPECT_EQ(segment.Get("total_size")->integer, 2097152);
    EXPECT_EQ(segment.Get("segment_type")->text, "small");
    const PickleValue* blocks = segment.Get("blocks");
    ASSERT_EQ(blocks->items.size(), 1000u);
    EXPECT_EQ(blocks->items[1]->Get("state")->text, "inactive");
    // one frames list, shared by every block and the trace, as Python pickled it
    EXPECT_EQ(blocks->items[0]->Get("frames"), blocks->items[999]->Get("frames"));
    EXPECT_EQ(blocks->items[0]->Get("frames")->items[0]->Get("line")->integer, 42);
    const PickleValue& oom = *root->Get("device_traces")->items[0]->items[0];
    EXPECT_EQ(oom.Get("action")->text, "oom");
    EXPECT_EQ(oom.Get("size")->integer, 3221225472);
    const PickleValue* settings = root->Get("allocator_settings");
    EXPECT_TRUE(settings->Get("expandable_segments")->boolean);
    EXPECT_EQ(settings->Get("garbage_collection_threshold")->type, PickleValue::Type::kFloat);
    EXPECT_EQ(settings->Get("max_split_size")->integer, -1);
    EXPECT_EQ(settings->Get("big")->integer, int64_t{1} << 62);
    EXPECT_EQ(settings->Get("neg")->integer, -300);
  }
}

TEST(ReadPickle, RefusesWhatWouldRunCode) {
  for (int protocol : {2, 4}) {
    std::string data = Pickled(
        "type(\"X\", (), {\"__reduce__\": lambda self: (os.system, (\"touch /tmp/pwned\",))})()", protocol);
    ASSERT_FALSE(data.empty());
    PickleRef root;
    PickleError error;
    EXPECT_FALSE(ReadPickle(data, {}, &root, &error));
    EXPECT_NE(error.message.find("names or calls code"), std::string::npos) << error.message;
    EXPECT_GT(error.offset, 1u);
    EXPECT_LT(error.offset, data.size());
  }
}

TEST(ReadPickle, RefusesAValueThatHoldsItselfATruncationAndOtherProtocols) {
  PickleRef root;
  PickleError error;
  EXPECT_FALSE(ReadPickle(Pickled("(lambda a: (a.append(a), a)[1])([])", 4), {}, &root, &error));
  EXPECT_NE(error.message.find("holds itself"), std::string::npos) << error.message;
  EXPECT_FALSE(
      ReadPickle(Pickled("(lambda d: (d.__setitem__(\"me\", [d]), d)[1])({})", 4), {}, &root, &error));
  EXPECT_NE(error.message.find("holds itself"), std::string::npos) << error.message;
  std::string whole = Pickled(kSnapshot, 4);
  for (size_t cut : {size_t{2}, whole.size() / 3, whole.size() - 1}) {
    EXPECT_FALSE(ReadPickle(whole.substr(0, cut), {}, &root, &error)) << cut;
    EXPECT_NE(error.message.find("truncated"), std::string::npos) << cut << ": " << error.message;
  }
  EXPECT_FALSE(ReadPickle(Pickled("[1, 2]", 0), {}, &root, &error));
  EXPECT_NE(error.message.find("protocol 2 or later"), std::string::npos) << error.message;
  EXPECT_FALSE(ReadPickle(Pickled("2**70", 4), {}, &root, &error));
  EXPECT_NE(error.message.find("beyond 64 bits"), std::string::npos) << error.message;
}

TEST(ReadPickle, StopsAtItsLimits) {
  PickleRef root;
  PickleError error;
  PickleLimits few;
  few.max_values = 100;
  EXPECT_FALSE(ReadPickle(Pickled("list(range(1000))", 4), few, &root, &error));
  EXPECT_NE(error.message.find("more than 100 values"), std::string::npos) << error.message;
  EXPECT_TRUE(error.too_many_values) << "refused for its size: the help says how to take a smaller one";
  // a value a million levels deep (one TUPLE1 each) would overflow the stack when freed
  std::string deep = "\x80\x04)" + std::string(1000000, '\x85') + ".";
  EXPECT_FALSE(ReadPickle(deep, {}, &root, &error));
  EXPECT_NE(error.message.find("nested deeper than 1000 levels"), std::string::npos) << error.message;
  EXPECT_FALSE(error.too_many_values);
  EXPECT_EQ(error.offset, 3u + 1000u);  // the 1001st TUPLE1, which makes the 1001st level
  PickleLimits short_strings;
  short_strings.max_string_bytes = 10;
  EXPECT_FALSE(ReadPickle(Pickled("\"x\" * 11", 4), short_strings, &root, &error));
  EXPECT_TRUE(ReadPickle(Pickled("\"x\" * 10", 4), short_strings, &root, &error)) << error.message;
  EXPECT_EQ(root->text, "xxxxxxxxxx");
}

}  // namespace
}  // namespace oomlens
