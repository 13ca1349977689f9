// `oomlens diff`: two runs of one job compared, from logs or from JSON reports.
// To approve changed output: OOMLENS_UPDATE_GOLDEN=1 build/unit_tests --gtest_filter='Diff*'
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "tests/cli/cli_harness.h"

namespace oomlens {
namespace {

const std::string kSource = OOMLENS_SOURCE_DIR;
const std::string kBefore = "testdata/diff/before_resnet152_batch4.log";
const std::string kAfter = "testdata/diff/after_resnet152_onehot_bf16.log";

void ExpectGolden(const std::string& got, const std::string& expected_path) {
  const char* update = std::getenv("OOMLENS_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(expected_path, std::ios::binary) << got;
    return;
  }
  EXPECT_EQ(FirstDifference(got, ReadFile(expected_path)), "") << expected_path << " changed";
}

class DiffTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(::chdir(kSource.c_str()), 0); }
};

TEST_F(DiffTest, CompileReportsOfTwoRunsMatchTheGoldenOutput) {
  CliResult text = RunOomlens({"diff", kBefore, kAfter});
  EXPECT_EQ(text.code, kExitNoOom) << text.err;  // nothing appeared
  ExpectGolden(text.out, "testdata/expected/diff/resnet152_onehot.txt");
  CliResult json = RunOomlens({"diff", "--format", "json", kBefore, kAfter});
  ExpectGolden(json.out, "testdata/expected/diff/resnet152_onehot.json");
  auto doc = nlohmann::json::parse(json.out);
  ASSERT_EQ(doc["incidents"].size(), 1u);
  const auto& incident = doc["incidents"][0];
  EXPECT_EQ(incident["status"], "changed");
  EXPECT_EQ(incident["facts"][0]["name"], "used_bytes");
  EXPECT_EQ(incident["facts"][0]["before"], 18897856102);  // 17.60G as printed, read back exactly
  bool one_hot = false;
  for (const auto& a : incident["allocations"]) {
    if (a["key"] == "one_hot (HLO temp)") {
      one_hot = true;
      EXPECT_EQ(a["status"], "shrank");
      EXPECT_EQ(a["before_padding"], 494403584);
      EXPECT_TRUE(a["after_padding"].is_null());
    }
  }
  EXPECT_TRUE(one_hot) << json.out;
}

TEST_F(DiffTest, JsonReportsGiveTheSameDiffAsTheLogs) {
  ScratchDir dir;
  std::string before = dir.Write("before.json", RunOomlens({"--format", "json", kBefore}).out);
  std::string after = dir.Write("after.json", RunOomlens({"--format", "json", kAfter}).out);
  CliResult from_logs = RunOomlens({"diff", "--format", "json", kBefore, kAfter});
  CliResult from_reports = RunOomlens({"diff", "--format", "json", before, after});
  EXPECT_EQ(from_reports.code, kExitNoOom) << from_reports.err;
  auto a = nlohmann::json::parse(from_logs.out), b = nlohmann::json::parse(from_reports.out);
  EXPECT_EQ(a["incidents"], b["incidents"]);
}

TEST_F(DiffTest, AnIncidentThatAppearsFailsTheRun) {
  CliResult r = RunOomlens({"diff", "testdata/logs/negative/quota_429_resource_exhausted.log", kAfter});
  EXPECT_EQ(r.code, kExitOomFound);
  EXPECT_NE(r.out.find("  appeared  E1000"), std::string::npos) << r.out;
  CliResult back = RunOomlens({"diff", kAfter, "testdata/logs/negative/quota_429_resource_exhausted.log"});
  EXPECT_EQ(back.code, kExitNoOom);
  EXPECT_NE(back.out.find("  vanished  E1000"), std::string::npos) << back.out;
}

// A side is read once, from the same stream the scan reads: a pipe loses nothing
// (the first 8 KiB were lost to sniffing), and a report is told by parsing it, in
// any key order and compressed, never by where "schema_version" sits.
TEST_F(DiffTest, EachSideIsReadOnceAndReportsAreToldByParsing) {
  ScratchDir dir;
  std::string report = RunOomlens({"--format", "json", kAfter}).out;
  auto doc = nlohmann::json::parse(report);
  std::string sorted =
      dir.Write("sorted.json", doc.dump(1));  // nlohmann sorts keys: schema_version near the end
  std::string gzipped = dir.Write("after.json.gz", Gzip(report));
  CliResult same = RunOomlens({"diff", sorted, gzipped});
  EXPECT_EQ(same.code, kExitNoOom) << same.err;
  EXPECT_NE(same.out.find("  same      E1000"), std::string::npos) << same.out;

  std::string padded = std::string(9000, '\n') + ReadFile(kAfter);  // the OOM past the first 8 KiB
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::thread writer([&] {
    size_t done = 0;
    while (done < padded.size()) {
      ssize_t n = ::write(fds[1], padded.data() + done, padded.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    ::close(fds[1]);
  });
  CliResult piped = RunOomlens({"diff", "testdata/logs/negative/quota_429_resource_exhausted.log",
                                "/dev/fd/" + std::to_string(fds[0])});
  writer.join();
  ::close(fds[0]);
  EXPECT_EQ(piped.code, kExitOomFound) << piped.err;
  EXPECT_NE(piped.out.find("  appeared  E1000"), std::string::npos) << piped.out;

  // a log of JSON lines starts with '{' too: it is scanned, not taken for a report
  std::string lines = dir.Write(
      "cloud.log",
      "{\"textPayload\": \"starting\"}\n{\"textPayload\": \"RESOURCE_EXHAUSTED: Error allocating device "
      "buffer: "
      "Attempting to allocate 8.00M. That was not possible. There are 6.43M free.; (0x0x1_HBM0)\"}\n");
  CliResult jsonl = RunOomlens({"diff", "testdata/logs/negative/quota_429_resource_exhausted.log", lines});
  EXPECT_EQ(jsonl.code, kExitOomFound) << jsonl.err;
  EXPECT_NE(jsonl.out.find("  appeared  E0100"), std::string::npos) << jsonl.out;
}

TEST_F(DiffTest, BadInputsSayWhatIsWrong) {
  ScratchDir dir;
  std::string broken = dir.Write("broken.json", "{\"schema_version\": 2, \"incidents\": []}");
  CliResult r = RunOomlens({"diff", broken, kAfter});
  EXPECT_EQ(r.code, kExitError);
  EXPECT_NE(r.err.find("broken.json: not an oomlens report of schema version 1"), std::string::npos) << r.err;
  CliResult missing = RunOomlens({"diff", dir.path() + "/nope.log", kAfter});
  EXPECT_EQ(missing.code, kExitError);
  EXPECT_NE(missing.err.find("nope.log: No such file or directory"), std::string::npos) << missing.err;
  CliResult one = RunOomlens({"diff", kAfter});
  EXPECT_EQ(one.code, kExitError);
  CliResult format = RunOomlens({"diff", "--format", "sarif", kBefore, kAfter});
  EXPECT_EQ(format.code, kExitError);
  EXPECT_NE(format.err.find("diff writes text or json"), std::string::npos);
}

}  // namespace
}  // namespace oomlens
