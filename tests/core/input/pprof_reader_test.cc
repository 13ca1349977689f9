// The pprof wire reader and the JAX profile read from it: on the profile Debian's
// python3-protobuf wrote (testdata/records, tests/gen/jax_profiles.py) and on
// messages encoded by hand: repeated fields packed and not, fields it skips, and
// every way a protobuf can be broken, refused with the byte where it breaks.
#include "core/input/pprof_reader.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "core/input/decompress.h"
#include "core/input/line_reader.h"
#include "core/recognize/jax_profile.h"

namespace oomlens {
namespace {

constexpr int64_t kGiB = int64_t{1} << 30;

std::string Gunzipped(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream raw;
  raw << in.rdbuf();
  std::string stored = raw.str(), text, error;
  StringSource source(stored);
  auto plain = OpenDecompressing(&source);
  EXPECT_TRUE(ReadUpTo(plain.get(), size_t{64} << 20, &text, &error)) << error;
  return text;
}

// Hand encoding: a varint, a tag, a length-delimited field.
std::string Varint(uint64_t v) {
  std::string out;
  do {
    out += static_cast<char>((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    v >>= 7;
  } while (v);
  return out;
}
std::string Tag(int field, int type) { return Varint(static_cast<uint64_t>(field) << 3 | type); }
std::string Field(int field, const std::string& bytes) {
  return Tag(field, 2) + Varint(bytes.size()) + bytes;
}
std::string IntField(int field, uint64_t v) { return Tag(field, 0) + Varint(v); }

// A profile of one sample of 3 GiB at location 1 (function 1, "m.py" "f" line 7).
std::string SmallProfile(const std::string& sample) {
  std::string strings;
  for (const char* s : {"", "allocations", "count", "space", "bytes", "m.py", "f", "kind", "buffer"})
    strings += Field(6, s);
  return Field(1, IntField(1, 1) + IntField(2, 2)) + Field(1, IntField(1, 3) + IntField(2, 4)) +
         Field(2, sample) + Field(4, IntField(1, 1) + Field(4, IntField(1, 1) + IntField(2, 7))) +
         Field(5, IntField(1, 1) + IntField(2, 6) + IntField(4, 5)) + strings;
}

TEST(ReadPprof, TheProfileProtobufWrote) {
  std::string data = Gunzipped(std::string(OOMLENS_SOURCE_DIR) + "/testdata/records/sharded-serving.prof");
  ASSERT_TRUE(LooksLikePprof(data));
  PprofProfile p;
  uint64_t offset = 0;
  std::string error;
  ASSERT_TRUE(ReadPprof(data, &p, &offset, &error)) << offset << ": " << error;
  ASSERT_EQ(p.sample_types.size(), 2u);
  EXPECT_EQ(p.String(p.sample_types[1].first), "space");
  EXPECT_EQ(p.String(p.sample_types[1].second), "bytes");
  ASSERT_EQ(p.samples.size(), 9u);
  EXPECT_EQ(p.samples[0].values, (std::vector<int64_t>{1, 3 * kGiB}));
  EXPECT_EQ(p.samples[1].values, (std::vector<int64_t>{8, 4 * kGiB}));  // 8 x 512 MiB
  EXPECT_EQ(p.samples[0].locations.size(), 4u);                         // two JAX frames, two of the program
  EXPECT_EQ(p.String(p.samples[0].labels[1].str), "TPU_0(host=0,(0,0,0,0))");
  EXPECT_EQ(p.String(12345), "");  // out of range: empty, never past the table

  Event record;
  ASSERT_TRUE(ReadJaxProfile(p, "x.prof", 2, &record, &error)) << error;
  EXPECT_EQ(record.kind, "memory_state");
  EXPECT_TRUE(record.record);
  EXPECT_EQ(record.facts.at("live_buffer_bytes").integer, 31 * kGiB);
  EXPECT_EQ(record.facts.at("live_buffer_count").integer, 36);
  EXPECT_EQ(record.facts.at("executable_bytes").integer, 96 << 20);
  EXPECT_EQ(record.facts.at("device_count").integer, 4);
  EXPECT_EQ(record.facts.at("largest_device_bytes").integer, 10 * kGiB);
  EXPECT_EQ(record.facts.at("smallest_device_bytes").integer, 7 * kGiB);
  EXPECT_EQ(record.allocations[0].fields.at("owner").text,
            "/srv/app/model.py:77 init_cache");  // past jax/_src
  EXPECT_EQ(record.allocations[8].fields.at("type").text, "executable");
}

TEST(ReadPprof, RepeatedFieldsPackedOrNotAndUnknownFieldsSkipped) {
  std::string packed = Field(1, Varint(1)) + Field(2, Varint(1) + Varint(3 * kGiB)) +
                       Field(3, IntField(1, 7) + IntField(2, 8));
  std::string unpacked = IntField(1, 1) + IntField(2, 1) + IntField(2, 3 * kGiB) +
                         Field(3, IntField(1, 7) + IntField(2, 8)) + Tag(9, 5) + "abcd" + Tag(10, 1) +
                         "12345678";
  for (const std::string& sample : {packed, unpacked}) {
    PprofProfile p;
    uint64_t offset = 0;
    std::string error;
    ASSERT_TRUE(ReadPprof(SmallProfile(sample) + IntField(9, 77), &p, &offset, &error)) << error;
    ASSERT_EQ(p.samples.size(), 1u);
    EXPECT_EQ(p.samples[0].locations, std::vector<uint64_t>{1});
    EXPECT_EQ(p.samples[0].values, (std::vector<int64_t>{1, 3 * kGiB}));
    Event record;
    ASSERT_TRUE(ReadJaxProfile(p, "x.prof", 0, &record, &error)) << error;
    EXPECT_EQ(record.allocations[0].fields.at("owner").text, "m.py:7 f");
  }
}

TEST(ReadPprof, RefusesABrokenProtobufSayingWhere) {
  std::string good = SmallProfile(IntField(1, 1) + IntField(2, 1) + IntField(2, 5));
  struct Case {
    std::string data, says;
  } cases[] = {
      {good.substr(0, good.size() - 3), "longer than what is left"},
      {good + Tag(3, 3), "wire type 3"},
      {good + "\x80\x80", "cut short inside a number"},
      {good + std::string(11, '\xff'), "longer than ten bytes"},
      {good + Tag(1, 0) + Varint(5), "message field of wire type 0"},
      {good + Tag(9, 1) + "123", "cut short inside a fixed-size field"},
      {std::string("\x00", 1), "numbered 0"},
  };
  for (const auto& c : cases) {
    PprofProfile p;
    uint64_t offset = 12345678;
    std::string error;
    EXPECT_FALSE(ReadPprof(c.data, &p, &offset, &error)) << c.says;
    EXPECT_NE(error.find(c.says), std::string::npos) << error;
    EXPECT_LE(offset, c.data.size()) << c.says;
  }
}

TEST(ReadJaxProfile, ACpuProfileIsNoDeviceMemoryProfile) {
  std::string strings;
  for (const char* s : {"", "samples", "count", "cpu", "nanoseconds"}) strings += Field(6, s);
  std::string cpu =
      Field(1, IntField(1, 1) + IntField(2, 2)) + Field(1, IntField(1, 3) + IntField(2, 4)) + strings;
  PprofProfile p;
  uint64_t offset;
  std::string error;
  ASSERT_TRUE(ReadPprof(cpu, &p, &offset, &error)) << error;
  Event record;
  EXPECT_FALSE(ReadJaxProfile(p, "cpu.prof", 0, &record, &error));
  EXPECT_NE(error.find("without space samples"), std::string::npos) << error;
  EXPECT_FALSE(LooksLikePprof("\n2026-11-30 step 1"));  // a log that starts with an empty line
}

}  // namespace
}  // namespace oomlens
