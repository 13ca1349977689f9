// Allocators' records through the CLI: memory snapshots and device memory
// profiles found by content, joined with the log of the same failure into one
// incident whichever order and however many threads read them, kept through a
// report written and merged again, reported as memory held when they join
// nothing, and refused (exit 2, with the offset) when a pickle would run code,
// holds no snapshot, or a profile is broken.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli/cli_harness.h"
#include "tests/core/pickled.h"

namespace oomlens {
namespace {

const std::string kSnapshots = std::string(OOMLENS_SOURCE_DIR) + "/testdata/records/";
const std::string kLog = kSnapshots + "fragmented-train.log";
const std::string kSnapshot = kSnapshots + "fragmented.pickle";
const std::string kTpuLogForHtml =
    std::string(OOMLENS_SOURCE_DIR) + "/testdata/logs/tpu_dumps/" + "dump_table_fragmentation.log";

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

// The HTML segment map: each segment a bar of its blocks by state at their place,
// then the request beside the largest free block (what memory_viz leaves to the eye).
TEST(Snapshot, TheHtmlReportDrawsTheSegmentsAndTheRequestBesideTheLargestFreeBlock) {
  CliResult r = RunOomlens({"--format", "html", kSnapshot});
  size_t map = r.out.find("<h3>Segments</h3><svg");
  ASSERT_NE(map, std::string::npos) << r.out;
  std::string svg = r.out.substr(map, r.out.find("</svg>", map) - map);
  auto count = [&svg](const std::string& what) {
    size_t n = 0;
    for (size_t at = svg.find(what); at != std::string::npos; at = svg.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("fill='#ddd'"), 6u) << "one bar per segment";
  EXPECT_EQ(count("fill='#7b7' stroke"), 6u) << "each segment's 60 MiB hole, free";
  EXPECT_EQ(count("<title>60.00M free</title>"), 6u);
  EXPECT_EQ(count("<title>400.00M allocated by /home/ml/proj/model.py:"), 6u);
  EXPECT_NE(svg.find("requested 200.00M"), std::string::npos);
  EXPECT_NE(svg.find("largest free block 60.00M"), std::string::npos);
  // The hole sits after the 400 MiB block, at 400/512 of the bar, not at its start.
  EXPECT_NE(svg.find("<rect x='437.5' y='4' width='65.625' height='16' fill='#7b7'"), std::string::npos)
      << svg;
  EXPECT_EQ(RunOomlens({"--format", "html", kTpuLogForHtml}).out.find("<h3>Segments</h3>"), std::string::npos)
      << "a listing without segments draws none";
}

TEST(Snapshot, AllocationsKeptStepAfterStepAreALeakNamedByTheFrameThatMadeThem) {
  CliResult r = RunOomlens({"--format", "json", kSnapshots + "leaking.pickle"});
  ASSERT_EQ(r.code, kExitOomFound) << r.err;
  const auto incident = nlohmann::json::parse(r.out)["incidents"][0];
  EXPECT_EQ(incident["cause"], "leak");
  const std::string first_tip = incident["advice"][0];
  EXPECT_EQ(
      first_tip.rfind("Find what keeps the tensors /home/ml/proj/train.py:57 step makes: 40 of them", 0), 0u)
      << first_tip;
  // The fragmented snapshot's one allocation in its trace is no leak: nothing there was freed.
  auto fragmented = nlohmann::json::parse(RunOomlens({"--format", "json", kSnapshot}).out)["incidents"][0];
  EXPECT_EQ(fragmented["cause"], "fragmentation");
  EXPECT_EQ(fragmented["facts"]["trace_frees"], 0);
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

namespace oomlens {
namespace {

const std::string kProfile = std::string(OOMLENS_SOURCE_DIR) + "/testdata/records/sharded-serving.prof";
const std::string kTpuLog =
    std::string(OOMLENS_SOURCE_DIR) + "/testdata/logs/tpu_runtime/e0101_seed_openxla_doc.log";

TEST(Profile, AloneItIsMemoryHeldNamingTheLargestAllocatingFrameAndNoOom) {
  CliResult r = RunOomlens({"--color", "never", kProfile});
  EXPECT_EQ(r.code, kExitNoOom) << r.err;
  EXPECT_NE(r.out.find("no OOM found in " + kProfile + " (1 memory profile)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Device memory held (JAX device memory profile)"), std::string::npos) << r.out;
  auto report = nlohmann::json::parse(RunOomlens({"--format", "json", kProfile}).out);
  EXPECT_TRUE(report["incidents"].empty());
  ASSERT_EQ(report["memory_records"].size(), 1u);
  EXPECT_EQ(report["memory_records"][0]["derived"]["top_owner"], "/srv/app/model.py:31 init_params");
  EXPECT_EQ(report["memory_records"][0]["facts"]["live_buffer_bytes"], int64_t{31} << 30);
  CliResult html = RunOomlens({"--format", "html", kProfile});
  EXPECT_NE(html.out.find("<h2>Device memory held (JAX device memory profile)</h2>"), std::string::npos);
  EXPECT_NE(html.out.find("(memory profile)"), std::string::npos);  // the input, not "0 lines"
  EXPECT_NE(html.out.find("<td>/srv/app/model.py:31 init_params</td>"), std::string::npos);
}

TEST(Profile, JoinsTheXlaFailureOfTheSameScanInAnyWay) {
  ScratchDir dir;
  std::string log_report = dir.path() + "/log.json", profile_report = dir.path() + "/prof.json";
  ASSERT_EQ(RunOomlens({"--format", "json=" + log_report, kTpuLog}).code, kExitOomFound);
  ASSERT_EQ(RunOomlens({"--format", "json=" + profile_report, kProfile}).code, kExitNoOom);
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"--format", "json", kTpuLog, kProfile},
                                             {"--format", "json", "-j", "2", kProfile, kTpuLog},
                                             {"merge", "--format", "json", profile_report, log_report}}) {
    CliResult r = RunOomlens(args);
    ASSERT_EQ(r.code, kExitOomFound) << r.err;
    auto report = nlohmann::json::parse(r.out);
    EXPECT_FALSE(report.contains("memory_records")) << r.out;
    ASSERT_EQ(report["incidents"].size(), 1u);
    const auto& incident = report["incidents"][0];
    EXPECT_EQ(incident["occurrences"], 1);
    EXPECT_EQ(incident["records"][0]["input"], kProfile);
    EXPECT_EQ(incident["derived"]["top_owner"], "/srv/app/model.py:31 init_params");
    EXPECT_EQ(incident["facts"]["program"], "jit_embedding_pipeline_step_fn");  // the log's own facts stay
    // The advice reads the profile: who holds HBM, not "find out what holds it".
    const std::string first_tip = incident["advice"][0];
    EXPECT_EQ(first_tip.rfind("Start with the arrays /srv/app/model.py:31 init_params creates", 0), 0u)
        << first_tip;
    EXPECT_EQ(incident["advice"].dump().find("tpu_log_allocations_on_oom"), std::string::npos);
    EXPECT_NE(incident["evidence"].dump().find("10.00G on the fullest, 7.00G on the emptiest"),
              std::string::npos);
  }
}

// pprof's --diff_base, for a leak: what grew between two profiles of one job.
TEST(Profile, TwoProfilesDiffedShowWhatGrewAndByWhichFrame) {
  const std::string later = std::string(OOMLENS_SOURCE_DIR) + "/testdata/records/sharded-serving-later.prof";
  CliResult r = RunOomlens({"diff", "--format", "json", kProfile, later});
  ASSERT_EQ(r.code, kExitNoOom) << r.err;  // memory held is no OOM
  auto diff = nlohmann::json::parse(r.out);
  ASSERT_EQ(diff["memory_records"].size(), 1u) << r.out;
  const auto& record = diff["memory_records"][0];
  EXPECT_EQ(record["status"], "changed");
  bool live_grew = false;
  for (const auto& f : record["facts"])
    live_grew |= f["name"] == "live_buffer_bytes" && f["before"] == int64_t{31} << 30 &&
                 f["after"] == int64_t{34} << 30;
  EXPECT_TRUE(live_grew) << record["facts"].dump();
  ASSERT_FALSE(record["allocations"].empty());
  EXPECT_EQ(record["allocations"][0]["key"], "/srv/app/model.py:120 decode (buffer)");
  EXPECT_EQ(record["allocations"][0]["status"], "new");
  EXPECT_EQ(record["allocations"][0]["after_bytes"], int64_t{3} << 30);
  CliResult text = RunOomlens({"diff", kProfile, later});
  EXPECT_NE(text.out.find("memory held: 1 record -> 1 record"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("live buffer        31.00G -> 34.00G  +3.00G (+10%)"), std::string::npos)
      << text.out;
  EXPECT_EQ(RunOomlens({"diff", "--format", "json", kProfile, kProfile}).out.find("\"changed\""),
            std::string::npos);
}

// An XLA dump's memory-usage-report: a compiled program's buffers, read from text.
const std::string kUsageReport =
    std::string(OOMLENS_SOURCE_DIR) +
    "/testdata/records/module_0412.jit_train_step.sm_8.0_gpu_after_optimizations-memory-"
    "usage-report.txt";

TEST(XlaUsageReport, AloneItIsMemoryHeldAndJoinedItTellsTheTemporariesFromTheArguments) {
  CliResult alone = RunOomlens({"--format", "json", kUsageReport});
  EXPECT_EQ(alone.code, kExitNoOom) << alone.err;
  auto held = nlohmann::json::parse(alone.out);
  ASSERT_EQ(held["memory_records"].size(), 1u);
  EXPECT_EQ(held["memory_records"][0]["facts"]["buffer_assignment_bytes"], 3326083072);
  EXPECT_EQ(held["memory_records"][0]["allocations"].size(), 4u) << "each allocation once, not its values";

  ScratchDir dir;
  std::string log = dir.Write("train.log",
                              "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while "
                              "trying to allocate 2147483648 bytes.\n");
  for (const auto& args : std::vector<std::vector<std::string>>{{"--format", "json", log, kUsageReport},
                                                                {"--format", "json", kUsageReport, log}}) {
    auto report = nlohmann::json::parse(RunOomlens(args).out);
    ASSERT_EQ(report["incidents"].size(), 1u);
    const auto& incident = report["incidents"][0];
    EXPECT_EQ(incident["rule"], "xla_gpu.program_temporaries");
    EXPECT_EQ(incident["facts"]["hlo_temp_bytes"], int64_t{2} << 30);
    EXPECT_EQ(incident["facts"]["arguments_bytes"], int64_t{864} << 20);
    EXPECT_EQ(incident["facts"]["output_bytes"], int64_t{256} << 20);
    EXPECT_EQ(incident["facts"]["requested_bytes"], int64_t{2147483648}) << "the log's own figure stays";
  }
}

// The report's file name names its module's program: it joins that program's failure,
// not the last one, and never another program's.
TEST(XlaUsageReport, ItJoinsTheFailureOfTheProgramItsFileNames) {
  ScratchDir dir;
  auto load = [](const std::string& program, const std::string& size) {
    return "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Error loading program '" + program +
           "': Attempting to reserve " + size +
           " at the bottom of memory. That was not possible. There are 147.64M free, 0B reserved, and "
           "147.64M "
           "reservable.\n";
  };
  std::string log = dir.Write("train.log", load("jit_train_step", "29.49G") + load("jit_eval_step", "3.10G"));
  auto report = nlohmann::json::parse(RunOomlens({"--format", "json", log, kUsageReport}).out);
  ASSERT_EQ(report["incidents"].size(), 2u);
  for (const auto& incident : report["incidents"]) {
    bool train = incident["facts"]["program"] == "jit_train_step";
    EXPECT_EQ(incident.contains("records"), train) << incident["facts"]["program"];
    EXPECT_EQ(incident["facts"].contains("buffer_assignment_bytes"), train);
  }
  std::string other = dir.Write("eval.log", load("jit_eval_step", "3.10G"));
  auto apart = nlohmann::json::parse(RunOomlens({"--format", "json", other, kUsageReport}).out);
  EXPECT_FALSE(apart["incidents"][0].contains("records")) << "another program's buffers";
  EXPECT_EQ(apart["memory_records"].size(), 1u);
}

// The buffer-assignment.txt of the same module: the same figures in bytes, each
// allocation once (a temporary buffer's five values over time are not summed).
TEST(XlaUsageReport, TheBufferAssignmentFileGivesTheSameFiguresInBytes) {
  const std::string assignment =
      std::string(OOMLENS_SOURCE_DIR) +
      "/testdata/records/module_0413.jit_train_step.sm_8.0_gpu_after_optimizations-"
      "buffer-assignment.txt";
  ScratchDir dir;
  std::string log = dir.Write("train.log",
                              "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while "
                              "trying to allocate 2147483648 bytes.\n");
  auto report = nlohmann::json::parse(RunOomlens({"--format", "json", log, assignment}).out);
  ASSERT_EQ(report["incidents"].size(), 1u);
  const auto& incident = report["incidents"][0];
  EXPECT_EQ(incident["rule"], "xla_gpu.program_temporaries");
  EXPECT_EQ(incident["facts"]["buffer_assignment_bytes"], 3321888772);
  EXPECT_EQ(incident["facts"]["hlo_temp_bytes"], int64_t{2} << 30) << "one allocation, not its five values";
  EXPECT_EQ(incident["facts"]["arguments_bytes"], 905969664);
  EXPECT_EQ(incident["allocations"].size(), 5u);
  EXPECT_FALSE(report.contains("memory_records")) << "one record: its total line starts no report of its own";
}

// A crafted log of many reports keeps at most as many records as a report keeps incidents.
TEST(XlaUsageReport, AFloodOfReportsInOneLogIsBoundedAndSaid) {
  ScratchDir dir;
  std::string flood;
  for (int k = 0; k < 10001; ++k) flood += "Total bytes used: " + std::to_string(1000 + k) + " (1.0KiB)\n\n";
  std::string path = dir.Write("flood.txt", flood);
  CliResult r = RunOomlens({"--format", "json", path});
  auto report = nlohmann::json::parse(r.out);
  EXPECT_EQ(report["memory_records"].size(), 10000u);
  EXPECT_NE(r.out.find("more than 10000 records of memory held; the rest are not kept"), std::string::npos);
}

TEST(Profile, AProfileNeverJoinsAPyTorchFailure) {
  CliResult r = RunOomlens({"--format", "json", kLog, kProfile});
  auto report = nlohmann::json::parse(r.out);
  ASSERT_EQ(report["incidents"].size(), 1u);
  EXPECT_FALSE(report["incidents"][0].contains("records"));
  EXPECT_EQ(report["memory_records"].size(), 1u);
}

TEST(Profile, ABrokenProfileIsRefusedWithTheByte) {
  ScratchDir dir;
  std::string raw;
  {
    FILE* pipe = ::popen(("gzip -dc '" + kProfile + "'").c_str(), "r");
    char buf[4096];
    for (size_t n; pipe && (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) raw.append(buf, n);
    if (pipe) ::pclose(pipe);
  }
  ASSERT_GT(raw.size(), 100u);
  CliResult r = RunOomlens({dir.Write("cut.prof", raw.substr(0, raw.size() - 20))});
  EXPECT_EQ(r.code, kExitError);
  EXPECT_NE(r.err.find("cut.prof: byte "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("not a well-formed pprof profile"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace oomlens
