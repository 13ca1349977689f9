// Memory snapshots through the CLI: found by content, joined with the log of the
// same OOM into one incident whichever order and however many threads read them,
// kept through a report written and merged again, and refused (exit 2, with the
// offset) when the pickle would run code or holds no snapshot.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli/cli_harness.h"
#include "tests/core/pickled.h"

namespace oomlens {
namespace {

const std::string kSnapshots = std::string(OOMLENS_SOURCE_DIR) + "/testdata/snapshots/";
const std::string kLog = kSnapshots + "fragmented-train.log";
const std::string kSnapshot = kSnapshots + "fragmented.pickle";

nlohmann::json Json(const CliResult& r) { return nlohmann::json::parse(r.out); }

TEST(Snapshot, JoinsTheLogsIncidentOfTheSameOomInAnyOrderAndThreads) {
  std::string first;
  for (const auto& args : std::vector<std::vector<std::string>>{{kLog, kSnapshot},
                                                                {kSnapshot, kLog},
                                                                {"-j", "2", kLog, kSnapshot},
                                                                {"-j", "1", kSnapshot, kLog}}) {
    std::vector<std::string> full = {"--format", "json"};
    full.insert(full.end(), args.begin(), args.end());
    CliResult r = RunOomlens(full);
    ASSERT_EQ(r.code, kExitOomFound) << r.err;
    auto report = Json(r);
    ASSERT_EQ(report["incidents"].size(), 1u) << r.out;
    const auto& incident = report["incidents"][0];
    EXPECT_EQ(incident["occurrences"], 1);  // the record is no second OOM
    EXPECT_EQ(incident["first"]["input"], kLog);
    EXPECT_EQ(incident["first"]["line"], 7);
    EXPECT_FALSE(incident.contains("record"));
    ASSERT_EQ(incident["records"].size(), 1u);
    EXPECT_EQ(incident["records"][0]["input"], kSnapshot);
    EXPECT_EQ(incident["cause"], "fragmentation");
    EXPECT_EQ(incident["rule"], "pytorch.snapshot_fragmentation");
    EXPECT_EQ(incident["facts"]["requested_bytes"], 200 << 20);  // the record's exact figure
    EXPECT_EQ(incident["facts"]["reserved_bytes"], int64_t{6} * 512 << 20);
    EXPECT_TRUE(incident["facts"].contains("capacity_bytes"));  // the log's own figure stays
    EXPECT_EQ(incident["derived"]["top_owner"], "/home/ml/proj/model.py:88 attention");
    EXPECT_EQ(incident["allocations"].size(), 18u);
    std::string summary = incident["summary"];
    if (first.empty()) first = summary;
    EXPECT_EQ(summary, first);
  }
}

TEST(Snapshot, AloneItIsAnIncidentOfItsOwnThatSaysSo) {
  CliResult r = RunOomlens({"--color", "never", kSnapshot});
  EXPECT_EQ(r.code, kExitOomFound) << r.err;
  EXPECT_NE(r.out.find("1 OOM incident in " + kSnapshot + " (1 memory snapshot)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("first at " + kSnapshot + "\n"), std::string::npos) << r.out;  // no line 0
  CliResult j = RunOomlens({"--format", "json", kSnapshot});
  auto report = Json(j);
  EXPECT_EQ(report["inputs"][0]["record"], "memory snapshot");
  EXPECT_EQ(report["incidents"][0]["record"], true);
}

TEST(Snapshot, AnotherRequestOrDeviceIsAnotherIncident) {
  ScratchDir dir;
  std::string log = ReadFile(kLog);
  std::string other = log;
  other.replace(other.find("200.00 MiB"), 10, "900.00 MiB");
  CliResult r = RunOomlens({"--format", "json", dir.Write("other.log", other), kSnapshot});
  EXPECT_EQ(Json(r)["incidents"].size(), 2u) << r.out;
  std::string gpu1 = log;
  gpu1.replace(gpu1.find("GPU 0"), 5, "GPU 1");
  r = RunOomlens({"--format", "json", dir.Write("gpu1.log", gpu1), kSnapshot});
  EXPECT_EQ(Json(r)["incidents"].size(), 2u) << r.out;
}

TEST(Snapshot, JoinedThroughReportsWrittenAndMerged) {
  ScratchDir dir;
  std::string log_report = dir.path() + "/log.json", snapshot_report = dir.path() + "/snap.json";
  ASSERT_EQ(RunOomlens({"--format", "json=" + log_report, kLog}).code, kExitOomFound);
  ASSERT_EQ(RunOomlens({"--format", "json=" + snapshot_report, kSnapshot}).code, kExitOomFound);
  CliResult merged = RunOomlens({"merge", "--format", "json", snapshot_report, log_report});
  ASSERT_EQ(merged.code, kExitOomFound) << merged.err;
  auto report = Json(merged);
  ASSERT_EQ(report["incidents"].size(), 1u) << merged.out;
  EXPECT_EQ(report["incidents"][0]["records"][0]["input"], kSnapshot);
  EXPECT_EQ(report["incidents"][0]["rule"], "pytorch.snapshot_fragmentation");
}

TEST(Snapshot, ExpandableSegmentsOnIsNeverAdvised) {
  CliResult r = RunOomlens({"--format", "json", kSnapshots + "expandable-aggregate.pickle.gz"});
  auto incident = Json(r)["incidents"][0];
  EXPECT_EQ(incident["cause"], "aggregate_usage");
  for (const auto& tip : incident["advice"])
    EXPECT_EQ(tip.get<std::string>().find("expandable_segments:True"), std::string::npos) << tip;
}

TEST(Snapshot, APickleThatWouldRunCodeIsRefusedAndRunsNothing) {
  ScratchDir dir;
  std::string marker = dir.path() + "/ran";
  std::string payload = Pickled(
      "type(\"X\", (), {\"__reduce__\": lambda self: (os.system, (\"touch " + marker + "\",))})()", 4);
  ASSERT_FALSE(payload.empty());
  CliResult r = RunOomlens({dir.Write("evil.pickle", payload)});
  EXPECT_EQ(r.code, kExitError) << r.out;
  EXPECT_NE(r.err.find("evil.pickle: byte "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("names or calls code"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nothing in this one ran"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("no verdict"), std::string::npos) << r.out;
  struct stat st;
  EXPECT_NE(::stat(marker.c_str(), &st), 0) << "the pickle ran";
}

TEST(Snapshot, APickleOfSomethingElseOrCutShortSaysWhatIsWrong) {
  ScratchDir dir;
  CliResult r = RunOomlens({dir.Write("weights.pickle", Pickled("{\"w\": [1.5, 2.5]}", 4))});
  EXPECT_EQ(r.code, kExitError);
  EXPECT_NE(r.err.find("holds no PyTorch memory snapshot"), std::string::npos) << r.err;
  std::string whole = ReadFile(kSnapshot);
  r = RunOomlens({dir.Write("cut.pickle", whole.substr(0, whole.size() / 2))});
  EXPECT_EQ(r.code, kExitError);
  EXPECT_NE(r.err.find("truncated"), std::string::npos) << r.err;
  // a log beside them is still read and reported
  r = RunOomlens({"--format", "json", dir.path() + "/cut.pickle", kLog});
  EXPECT_EQ(r.code, kExitError);
  EXPECT_EQ(Json(r)["incidents"].size(), 1u);
}

}  // namespace
}  // namespace oomlens
