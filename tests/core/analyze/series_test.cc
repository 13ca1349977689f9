// Memory series: figures printed periodically become a trend; a steady rise is
// a leak (with or without an OOM after it), a level series is evidence against.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "core/input/line_cleaner.h"
#include "oomlens/scanner.h"
#include "tests/core/scan_fixture.h"

namespace oomlens {
namespace {

class SeriesTest : public ScanFixture {};

std::string Memstats(double used_gib) {
  char line[128];
  std::snprintf(line, sizeof line, "\tUsing (GB) %.2f / 31.25 (0%%) on TPU_0(process=0,(0,0,0,0))\n",
                used_gib);
  return line;
}

const char kOom[] =
    "RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate 1.00G. That was not "
    "possible. "
    "There are 512.00M free.\n";

int64_t Derived(const Incident& i, const char* name) {
  auto it = i.derived.find(name);
  return it == i.derived.end() ? -1 : it->second.integer;
}

TEST_F(SeriesTest, ALevelSeriesWithoutOomIsNothing) {
  std::string text;
  for (int k = 0; k < 50; ++k) text += Memstats(20.0 + (k % 2) * 0.01);
  EXPECT_TRUE(Scan(text).incidents.empty());
}

TEST_F(SeriesTest, AWarmUpThatLevelsOffIsNoLeak) {
  std::string text;
  for (double v : {2.0, 10.0, 20.0, 20.0, 20.0, 20.0, 20.0, 20.0}) text += Memstats(v);
  EXPECT_TRUE(Scan(text).incidents.empty());
}

TEST_F(SeriesTest, SteadyGrowthWithoutOomIsALeakIncident) {
  std::string text;
  for (int k = 0; k < 6; ++k) text += Memstats(10.0 + 2.0 * k);
  Report report = Scan(text);
  ASSERT_EQ(report.incidents.size(), 1u);
  const Incident& i = report.incidents[0];
  EXPECT_EQ(i.kind, "memory_growth");
  EXPECT_EQ(i.diagnosis.best.cause, "leak");
  EXPECT_EQ(Derived(i, "series_samples"), 6);
  EXPECT_EQ(Derived(i, "series_slope_bytes"), 2ll << 30);
  EXPECT_EQ(Derived(i, "series_samples_to_limit"), 6);  // (31.25 - 20) / 2 = 5.6 -> 6
}

TEST_F(SeriesTest, SteadyGrowthBeforeAnOomMakesItALeak) {
  std::string text;
  for (int k = 0; k < 6; ++k) text += Memstats(10.0 + 2.0 * k);
  Report report = Scan(text + kOom);
  ASSERT_EQ(report.incidents.size(), 1u);  // the series is the OOM's context, not an incident of its own
  EXPECT_EQ(report.incidents[0].kind, "tpu_buffer_alloc");
  EXPECT_EQ(report.incidents[0].diagnosis.best.cause, "leak");
}

TEST_F(SeriesTest, ALevelSeriesBeforeAnOomSpeaksAgainstALeak) {
  std::string text;
  for (int k = 0; k < 6; ++k) text += Memstats(30.0);
  Report report = Scan(text + kOom);
  ASSERT_EQ(report.incidents.size(), 1u);
  const Diagnosis& d = report.incidents[0].diagnosis;
  EXPECT_EQ(d.best.cause, "oversize");
  ASSERT_FALSE(d.evidence.empty());
  EXPECT_NE(d.evidence.back().find("memory was level before the OOM"), std::string::npos)
      << d.evidence.back();
}

TEST_F(SeriesTest, FiguresAfterTheOomDoNotExplainIt) {
  std::string text = kOom;
  for (int k = 0; k < 6; ++k) text += Memstats(10.0 + 2.0 * k);
  Report report = Scan(text);
  ASSERT_EQ(report.incidents.size(), 1u);
  EXPECT_EQ(report.incidents[0].series.figures, 0u);
  EXPECT_NE(report.incidents[0].diagnosis.best.cause, "leak");
}

TEST_F(SeriesTest, LongSeriesAreDecimatedButCountedExactly) {
  std::string text;
  for (int k = 0; k < 10000; ++k) text += Memstats(1.0 + k * 0.002);
  Report report = Scan(text);
  ASSERT_EQ(report.incidents.size(), 1u);
  const MemorySeries& s = report.incidents[0].series;
  EXPECT_EQ(s.figures, 10000u);
  EXPECT_LE(s.points.size(), 1024u);
  EXPECT_EQ(s.first.line, 1u);
  EXPECT_EQ(s.last.line, 10000u);
  EXPECT_EQ(report.incidents[0].diagnosis.best.cause, "leak");
}

TEST(TimestampSeconds, ReadsGlogAbslAndIsoTimestamps) {
  EXPECT_EQ(TimestampSeconds("1130 12:00:01.500000").value(), ((304 + 30) * 24 * 3600.0) + 12 * 3600 + 1.5);
  EXPECT_EQ(TimestampSeconds("0000 00:00:1717141650.5").value(), 1717141650.5);
  EXPECT_EQ(TimestampSeconds("2026-11-30 12:00:01,500").value(), TimestampSeconds("1130 12:00:01.5").value());
  EXPECT_EQ(TimestampSeconds("2026-11-30T12:00:01.5Z").value(), TimestampSeconds("1130 12:00:01.5").value());
  EXPECT_FALSE(TimestampSeconds("yesterday").has_value());
  EXPECT_FALSE(TimestampSeconds("1330 12:00:00").has_value());  // month 13
  EXPECT_FALSE(TimestampSeconds("").has_value());
  EXPECT_FALSE(TimestampSeconds("12345.678901").has_value());  // dmesg: seconds since boot, no date
  EXPECT_EQ(TimestampSeconds("2026-01-02 03:04:05").value(), ((2 * 24 + 3) * 60 + 4) * 60 + 5.0);
}

TEST(TimestampText, GivesIso8601ToTheSecond) {
  EXPECT_EQ(TimestampText("2026-11-30 09:14:11,402"), "2026-11-30T09:14:11");
  EXPECT_EQ(TimestampText("2026-11-30T09:14:11.402Z"), "2026-11-30T09:14:11");
  EXPECT_EQ(TimestampText("1130 12:00:01.500000"), "--11-30T12:00:01");         // glog names no year
  EXPECT_EQ(TimestampText("0000 00:00:1717141650.89"), "2024-05-31T07:47:30");  // absl: epoch seconds
  EXPECT_EQ(TimestampText("0000 00:00:0"), "1970-01-01T00:00:00");
  EXPECT_EQ(TimestampText("0000 00:00:99999999999999"), "");  // beyond year 5000: not a time
  EXPECT_EQ(TimestampText("12345.678901"), "");
  EXPECT_EQ(TimestampText("1330 12:00:00"), "");
  EXPECT_LT(TimestampText("--01-05T00:00:00"),
            TimestampText("1130 00:00:00"));  // one form sorts in time order
}

TEST_F(SeriesTest, TimestampsGiveTheGrowthPerMinute) {
  std::string text;
  for (int k = 0; k < 6; ++k) {
    char stamp[64];
    std::snprintf(stamp, sizeof stamp, "I1130 10:%02d:00.000000 7 max_utils.py:697] ",
                  2 * k);  // every 2 minutes
    text += stamp + Memstats(10.0 + 2.0 * k);
  }
  Report report = Scan(text);
  ASSERT_EQ(report.incidents.size(), 1u);
  const Incident& i = report.incidents[0];
  EXPECT_EQ(Derived(i, "series_slope_per_minute_bytes"), 1ll << 30);  // 2G per 2 minutes
  EXPECT_NEAR(i.derived.at("series_minutes").number, 10.0, 1e-9);
  EXPECT_NEAR(i.derived.at("series_minutes_to_limit").number, 11.25, 1e-9);  // (31.25 - 20) / 1
}

TEST_F(SeriesTest, RepeatedOomsWithGrowingNumbersAreASeries) {
  // A retry loop: each attempt fails with more memory already allocated.
  std::string text;
  for (int attempt = 0; attempt < 6; ++attempt) {
    char line[256];
    std::snprintf(
        line, sizeof line,
        "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 79.15 GiB total capacity; "
        "%d.00 GiB already allocated; 1.50 GiB free; %d.00 GiB reserved in total by PyTorch)\n",
        40 + 6 * attempt, 41 + 6 * attempt);
    text += "epoch " + std::to_string(attempt) + " retrying\n" + line;
  }
  Report report = Scan(text);
  ASSERT_FALSE(report.incidents.empty());
  const Incident& last = report.incidents.back();
  EXPECT_EQ(last.series.figures, 6u) << last.series.name;
  EXPECT_EQ(last.series.name, "memory in use at each pytorch_cuda failure");
  EXPECT_EQ(last.diagnosis.best.cause, "leak");
}

}  // namespace
}  // namespace oomlens
