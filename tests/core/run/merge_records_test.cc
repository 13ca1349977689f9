// Merging reports that hold records of memory held: a merge keeps at most
// kMaxIncidents of them and says how many it dropped (a crafted pickle of 200,000
// devices took 3.4 GB as as many records before the cap).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "core/analyze/grouping.h"
#include "oomlens/merge.h"
#include "tests/core/scan_fixture.h"

namespace oomlens {
namespace {

class MergeRecordsTest : public ScanFixture {};

// A part of one input holding `count` records of memory held, as a profile gives.
Report PartWithRecords(size_t count, const std::string& name) {
  Report part;
  part.inputs.push_back(InputSummary{name, 0, 1, true, "memory profile"});
  Incident record;
  record.kind = "memory_state";
  record.title = "Device memory held (JAX device memory profile)";
  record.first = Location{name, 0};
  for (size_t k = 0; k < count; ++k) part.memory_records.push_back(record);
  return part;
}

TEST_F(MergeRecordsTest, AMergeKeepsAtMostTheCapOfRecordsAndSaysHowManyItDropped) {
  std::vector<Report> parts;
  parts.push_back(PartWithRecords(kMaxIncidents - 1, "a.prof"));
  parts.push_back(PartWithRecords(3, "b.prof"));
  Report merged = MergeReports(std::move(parts), rules_, "");
  EXPECT_EQ(merged.memory_records.size(), kMaxIncidents);
  ASSERT_EQ(merged.inputs.size(), 2u);
  EXPECT_EQ(merged.memory_records.back().first_input_index, 1)
      << "the one kept of b.prof is placed after a.prof";
  bool said = false;
  for (const auto& p : merged.problems)
    said |= p.message.find("2 records of memory held were read but not kept") != std::string::npos;
  EXPECT_TRUE(said);

  std::vector<Report> within;
  within.push_back(PartWithRecords(2, "a.prof"));
  within.push_back(PartWithRecords(2, "b.prof"));
  Report small = MergeReports(std::move(within), rules_, "");
  EXPECT_EQ(small.memory_records.size(), 4u);
  for (const auto& p : small.problems) EXPECT_EQ(p.message.find("not kept"), std::string::npos) << p.message;
}

}  // namespace
}  // namespace oomlens
