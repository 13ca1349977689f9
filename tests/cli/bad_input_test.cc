// The bad-input table of docs/reliability.md: every row runs the real CLI
// in-process and checks the exit code, the message, and that the good part of
// the input (a known OOM placed after the bad part) is still reported.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli.h"
#include "oomlens/render.h"
#include "tests/cli/cli_harness.h"

namespace oomlens {
namespace {

const char kSeed[] =
    "RESOURCE_EXHAUSTED: Error loading program 'jit_seed': Attempting to reserve 29.49G at the bottom of "
    "memory. That was not possible. There are 147.64M free, 0B reserved, and 147.64M reservable.\n";

using Result = CliResult;

class BadInput : public ::testing::Test {
 protected:
  std::string Write(const std::string& name, const std::string& content) {
    return scratch_.Write(name, content);
  }
  Result Run(std::vector<std::string> args, Console console = {}) {
    return RunOomlens(std::move(args), console);
  }
  // Runs a log in JSON and checks that the JSON parses and the seed incident is there.
  Result RunLog(const std::string& content) {
    Result r = Run({"--format", "json", Write("input.log", content)});
    EXPECT_TRUE(nlohmann::json::accept(r.out)) << "invalid JSON";
    return r;
  }
  static bool FoundSeed(const Result& r) {
    return r.out.find("\"program\": \"jit_seed\"") != std::string::npos;
  }

  ScratchDir scratch_;
  const std::string dir_ = scratch_.path();
};

// Reports given to merge and diff are untrusted too: a wrong type or a missing
// part is exit 2 with the place, never a crash; a missing optional part reads as absent.
TEST_F(BadInput, MalformedReportsAreErrorsNotCrashes) {
  const char* errors[] = {
      R"({"schema_version":"1"})",
      R"({"schema_version":null})",
      R"({"schema_version":1.5})",
      R"({"schema_version":1,"incidents":[5]})",
      R"({"schema_version":1,"incidents":[{"kind":"x","occurrences":-5}]})",
      R"({"schema_version":1,"incidents":[{"kind":"x","first":{"line":"ten"}}]})",
      R"([1,2])",
      R"({"schema_version":1,"incidents":[{"kind":"x","seen":{"inputs":["a"]}}]})",
      R"({"schema_version":1,"incidents":[{"kind":"x","seen":{"inputs":[-1]}}]})",
      R"({"schema_version":1,"incidents":[{"kind":"x","seen":{"days":{"2026-11-30":0}}}]})",
      R"({"schema_version":1,"incidents":[{"kind":"x","seen":{"days":{"2026-11-30":-3}}}]})"};
  for (const char* doc : errors) {
    Result r = Run({"merge", Write("report.json", doc)});
    EXPECT_EQ(r.code, kExitError) << doc;
    EXPECT_NE(r.err.find("report.json"), std::string::npos) << doc << ": " << r.err;
  }
  const char* lenient[] = {
      R"({"schema_version":1,"incidents":[{"kind":"x"}]})",
      R"({"schema_version":1,"incidents":[{"kind":"x","first":{},"series":{}}]})",
      R"({"schema_version":1,"incidents":[{"kind":"x","first":5,"series":{"first":3}}]})",
      // floats no integer can hold (report_fuzzer): read as 0, never converted
      R"({"schema_version":1,"incidents":[{"kind":"x","partitions":[-1e300],"replicas":[1e300],)"
      R"("first":{"line":-5.5},"excerpt_lines":1e308}]})",
      // inputs beyond the report's, unknown or inverted ranges: mended or dropped
      R"({"schema_version":1,"incidents":[{"kind":"x","seen":{"inputs":[7,3],)"
      R"("ranges":{"free_bytes":[9,1],"nonsense":[1,2]}}}]})"};
  for (const char* doc : lenient)
    EXPECT_EQ(Run({"merge", Write("report.json", doc)}).code, kExitOomFound) << doc;
}

// report_fuzzer's finding: a listing's summary without free_block_count (an edited
// report) made the text renderer throw out of std::map::at, and merge abort.
TEST_F(BadInput, AReportMissingADerivedFigureRendersInEveryFormat) {
  std::string report =
      std::string(OOMLENS_SOURCE_DIR) + "/tests/fuzz/regressions/report_listing_summary_without_block_count";
  for (const std::string& format : FormatNames()) {
    Result r = Run({"--format", format, "merge", report});
    EXPECT_EQ(r.code, kExitOomFound) << format << ": " << r.err;
  }
  EXPECT_EQ(Run({"--fleet", "merge", report}).code, kExitOomFound);
  EXPECT_NE(Run({"merge", report}).out.find("free 2.25G, largest 256.00M"), std::string::npos);
}

// A report over kMaxReportBytes (256 MiB once inflated; 260 KB gzipped here) is
// refused with the reason by merge and diff, not read into memory without end
// (a 512 MiB report took 2.69 GB).
TEST_F(BadInput, AReportOverTheCapIsRefusedWithItsReason) {
  std::string path = Write("huge.json.gz", Gzip("{\"schema_version\": 1, \"incidents\": [] ") +
                                               Gzip(std::string(1 << 20, ' '), 257) + Gzip("}"));
  for (std::vector<std::string> args : {std::vector<std::string>{"merge", path}, {"diff", path, path}}) {
    Result r = Run(args);
    EXPECT_EQ(r.code, kExitError) << args[0];
    EXPECT_NE(r.err.find("huge.json.gz: larger than 256 MiB; a report that large is not read back"),
              std::string::npos)
        << args[0] << ": " << r.err;
  }
}

// A full disk is an error (exit 2, said on stderr); only a closed pipe is 141.
TEST_F(BadInput, AFullDiskIsAnErrorNotABrokenPipe) {
  if (std::system("test -w /dev/full") != 0) GTEST_SKIP() << "no /dev/full";
  std::string err = scratch_.path() + "/err";
  std::string command = std::string(OOMLENS_BINARY) + " " + OOMLENS_SOURCE_DIR +
                        "/testdata/examples/multihost_e0101.log > /dev/full 2> " + err;
  int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), kExitError);
  EXPECT_NE(ReadFile(err).find("writing the report failed: No space left on device"), std::string::npos)
      << ReadFile(err);
}

// A closed stdout is no full disk: the help says what is wrong (attack review K4:
// it said to free space).
TEST_F(BadInput, AClosedStdoutIsSaidToBeClosed) {
  std::string err = scratch_.path() + "/err";
  std::string command = std::string(OOMLENS_BINARY) + " --format json " + OOMLENS_SOURCE_DIR +
                        "/testdata/examples/multihost_e0101.log >&- 2> " + err;
  int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), kExitError);
  std::string said = ReadFile(err);
  EXPECT_NE(said.find("writing the report failed: Bad file descriptor (help: stdout is closed"),
            std::string::npos)
      << said;
  EXPECT_EQ(said.find("free space"), std::string::npos) << said;
}

// The --rules walk ends on loops and refuses what is no rule file: a FIFO and a
// link to /dev/zero (which was read whole into memory) are errors, not hangs.
TEST_F(BadInput, RulesFolderWithLoopsFifosAndDevices) {
  std::string rules = scratch_.path() + "/rules";
  Write("rules/sub/.keep", "");
  ASSERT_EQ(::symlink(".", (rules + "/loop").c_str()), 0);
  ASSERT_EQ(::symlink("/dev/zero", (rules + "/zero.json").c_str()), 0);
  ASSERT_EQ(::mkfifo((rules + "/fifo.json").c_str(), 0600), 0);
  Result r = Run({"rules", "check", rules});
  EXPECT_EQ(r.code, kExitError);
  EXPECT_NE(r.err.find("zero.json: not a rule file"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("fifo.json: not a rule file"), std::string::npos) << r.err;
}

// No escape sequence reaches a terminal or a CI log from a merged report's fields
// or from a file name: C0, C1 (raw 0x9B and U+009B) and DEL become '?'.
TEST_F(BadInput, EscapesFromReportsAndFileNamesStayInert) {
  std::string title =
      "T\x1b[31mX\xc2\x9b"
      "31mY\x9b"
      "Z";
  nlohmann::json doc = {
      {"schema_version", 1},
      {"inputs", nlohmann::json::array()},
      {"incidents",
       {{{"kind", "k\x1b]0;owned\x07"},
         {"code", "E\x1b[2J"},
         {"title", title},
         {"occurrences", 1},
         {"first", {{"input", "a\x1b[1m.log"}, {"line", 1}}}}}},
      {"problems", {{{"severity", "warning"}, {"where", "w\x1b[5m"}, {"message", "m\x9b"}}}}};
  std::string report =
      Write("report.json", doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  Write(std::string("name\x1b[7m.log"),
        "RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate "
        "8.00M. That was not possible. There are 6.43M free.; (0x0x1_HBM0)\n");
  for (const char* format : {"text", "github", "markdown"}) {
    Result merged = Run({"merge", "--format", format, report});
    Result named =
        Run({"--format", format, scratch_.path() + "/name\x1b[7m.log", scratch_.path() + "/none\x1b[7m.log"});
    for (const Result* r : {&merged, &named}) {
      for (const std::string* text : {&r->out, &r->err}) {
        EXPECT_EQ(text->find('\x1b'), std::string::npos) << format << ": " << *text;
        EXPECT_EQ(text->find("\xc2\x9b"), std::string::npos) << format;
        EXPECT_EQ(text->find('\x9b'), std::string::npos) << format;
      }
    }
  }
}

TEST_F(BadInput, EmptyInput) {
  Result r = Run({Write("empty.log", "")});
  EXPECT_EQ(r.code, kExitNoOom);
  EXPECT_NE(r.out.find("no OOM found"), std::string::npos);
}

TEST_F(BadInput, BinaryJunkAndNulBytes) {
  std::string junk;
  for (int i = 0; i < 65536; ++i) junk += static_cast<char>((i * 2654435761u) >> 24);
  Result r = RunLog(junk + "\n" + std::string("a\0b\0c", 5) + "\n" + kSeed);
  EXPECT_EQ(r.code, kExitOomFound);
  EXPECT_TRUE(FoundSeed(r));
}

TEST_F(BadInput, InvalidUtf8StaysValidJson) {
  std::string msg = kSeed;
  msg.replace(msg.find("jit_seed"), 8, "jit_\xff\xfe\xc3");
  Result r = RunLog(msg + kSeed);
  EXPECT_EQ(r.code, kExitOomFound);
  EXPECT_NE(r.out.find("jit_\xef\xbf\xbd"), std::string::npos);  // U+FFFD
  EXPECT_TRUE(FoundSeed(r));
}

TEST_F(BadInput, GiantLineIsCutWithAWarning) {
  Result r = RunLog(std::string(64 << 20, 'x') + "\n" + kSeed);
  EXPECT_EQ(r.code, kExitOomFound);
  EXPECT_NE(r.err.find(":1: line longer than 4.00M; only its start was read"), std::string::npos) << r.err;
  EXPECT_TRUE(FoundSeed(r));
}

TEST_F(BadInput, TenMillionShortLines) {
  std::string many;
  many.reserve(20000000 + sizeof kSeed);
  for (int i = 0; i < 10000000; ++i) many += "x\n";
  Result r = RunLog(many + kSeed);
  EXPECT_EQ(r.code, kExitOomFound);
  EXPECT_NE(r.out.find("\"line\": 10000001"), std::string::npos);
}

TEST_F(BadInput, InterleavedHalvesOfTwoMessages) {
  Result r = RunLog(
      "[host-a] RESOURCE_EXHAUSTED: Error loading program 'jit_a': Attempting to reserve\n"
      "[host-b] RESOURCE_EXHAUSTED: Error loading program 'jit_b': Attempting to reserve\n"
      "[host-a] 2.00G at the bottom of memory. That was not possible. There are 1.00G free.\n"
      "[host-b] 3.00G at the bottom of memory. That was not possible. There are 1.00G free.\n");
  EXPECT_EQ(r.code, kExitOomFound);
  EXPECT_NE(r.out.find("\"program\": \"jit_a\""), std::string::npos);
  EXPECT_NE(r.out.find("\"program\": \"jit_b\""), std::string::npos);
}

TEST_F(BadInput, MessageCutBeforeItsNumber) {
  Result r = RunLog(std::string(kSeed) +
                    "RESOURCE_EXHAUSTED: Error loading program 'jit_cut': Attempting to reserve");
  EXPECT_EQ(r.code, kExitOomFound);
  EXPECT_NE(r.err.find("a tpu_program_load message without requested_bytes was skipped"), std::string::npos);
  EXPECT_TRUE(FoundSeed(r));
}

TEST_F(BadInput, DumpCutMidEntry) {
  Result r = RunLog(
      "Ran out of memory in memory space hbm. Used 9.00G of 8.00G hbm. Exceeded hbm capacity by 1.00G.\n"
      "  Largest program allocations in hbm:\n"
      "  1. Size: 2.00G\n"
      "     Shape: f32[8,128]{1,0}\n"
      "  2. Size: 1.0");
  EXPECT_EQ(r.code, kExitOomFound);
  auto doc = nlohmann::json::parse(r.out);
  auto allocations = doc["incidents"][0]["allocations"];
  ASSERT_EQ(allocations.size(), 2u);
  EXPECT_EQ(allocations[0]["shape"], "f32[8,128]{1,0}");
  EXPECT_EQ(allocations[1].count("shape"), 0u);  // never invented
}

TEST_F(BadInput, AbsurdNegativeAndNonNumbers) {
  Result r = RunLog(
      "Error allocating device buffer: Attempting to allocate 9999999999999999999999G. That was not "
      "possible. There are 1.00G free.\n"
      "Error allocating device buffer: Attempting to allocate nanG. That was not possible. There are "
      "infG free.\n"
      "Error allocating device buffer: Attempting to allocate 1.00G. That was not possible. There are "
      "-5.00G free.\n" +
      std::string(kSeed));
  EXPECT_EQ(r.code, kExitOomFound);
  EXPECT_NE(r.err.find("ignored requested_bytes: '9999999999999999999999G' is too large to be a byte count"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("ignored free_bytes: '-5.00G' is a negative amount of memory"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.out.find("-5368709120"), std::string::npos);  // not read: no tip built on it
  EXPECT_TRUE(FoundSeed(r));
}

TEST_F(BadInput, MissingFileDirectoryAndFifo) {
  std::string fifo = dir_ + "/pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&fifo] { std::ofstream(fifo) << kSeed; });
  Result r = Run({"--format", "json", dir_ + "/missing.log", dir_, fifo});
  writer.join();
  EXPECT_EQ(r.code, kExitError);
  EXPECT_NE(r.err.find("missing.log: No such file or directory (help: check the path)"), std::string::npos);
  EXPECT_NE(r.err.find(": is a directory (help: give the log files inside it"), std::string::npos);
  EXPECT_TRUE(FoundSeed(r));  // the FIFO was read
}

// Ctrl-C while a FIFO waits for its writer (alone, or beside other files on
// worker threads): 130 and no report, not "Interrupted system call" and exit 2.
TEST_F(BadInput, InterruptWhileAFifoWaitsForItsWriter) {
  std::string fifo = dir_ + "/quiet";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string other = Write("other.log", kSeed);
  for (const auto& args : {std::vector<std::string>{fifo}, std::vector<std::string>{fifo, other}}) {
    std::atomic<bool> interrupted{false};
    Console console;
    console.interrupted = &interrupted;
    std::thread ctrl_c([&interrupted] {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      interrupted.store(true);
    });
    Result r = Run(args, console);
    ctrl_c.join();
    EXPECT_EQ(r.code, kExitInterrupted) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("interrupted; no report written"), std::string::npos) << r.err;
  }
}

TEST_F(BadInput, StdinClosedEarly) {
  Console console;
  console.stdin_fd = ::open("/dev/null", O_RDONLY);
  ::close(console.stdin_fd);  // now a closed descriptor
  Result r = Run({"-"}, console);
  EXPECT_EQ(r.code, kExitError);
  EXPECT_NE(r.err.find("<stdin>: read failed after 0 bytes: Bad file descriptor"), std::string::npos)
      << r.err;
}

TEST_F(BadInput, BrokenRuleFilesAreReportedTogether) {
  std::string rules = dir_ + "/rules";
  ::mkdir(rules.c_str(), 0700);
  Write("rules/a_bad_json.json", "{\"version\": 1,");
  Write("rules/b_unknown_key.json",
        R"j({"version": 1, "signatures": [{"id": "x", "kind": "k", "colour": 1}]})j");
  Write(
      "rules/c_unknown_fact.json",
      R"j({"version": 1, "causes": [{"id": "c", "cause": "oversize", "confidence": 0.5, "when": "bogus > 1", "summary": "s"}]})j");
  Write(
      "rules/d_no_groups.json",
      R"j({"version": 1, "signatures": [{"id": "y", "kind": "k", "literals": ["Y"], "start": "Y", "facts": ["Y (\\d+)"]}]})j");
  Result r = Run({"rules", "check", rules});
  EXPECT_EQ(r.code, kExitError);
  EXPECT_NE(r.err.find("a_bad_json.json:1:15: invalid JSON"), std::string::npos);
  EXPECT_NE(r.err.find("b_unknown_key.json:1:66: /signatures/0/colour: unknown key 'colour'"),
            std::string::npos);
  EXPECT_NE(r.err.find("c_unknown_fact.json:1:87: /causes/0/when: bad expression at column 1 of 'bogus > 1'"),
            std::string::npos);
  EXPECT_NE(r.err.find("d_no_groups.json:1:99: /signatures/0/facts/0: pattern captures no fact"),
            std::string::npos);
}

// Nesting and chains as deep as an attacker likes: an error with the place, never a
// stack overflow (in the JSON parser, in code that walks the result, in evaluation).
TEST_F(BadInput, DeepNestingAndLongChainsAreErrorsNotCrashes) {
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  Result merge =
      Run({"merge", Write("deep.json",
                          R"({"schema_version":1,"incidents":[{"kind":"x","facts":{"y":)" + deep + "}}]})")});
  EXPECT_EQ(merge.code, kExitError);
  EXPECT_NE(merge.err.find("deep.json: nested deeper than 64 levels"), std::string::npos) << merge.err;

  std::string rules = dir_ + "/deep";
  ::mkdir(rules.c_str(), 0700);
  Write("deep/nested.json", R"({"version": 1, "signatures": [{"id": )" + deep + "}]}");
  std::string chain = "requested_bytes";
  for (int i = 0; i < 50000; ++i) chain += " + requested_bytes";
  Write("deep/chain.json", R"j({"version": 1, "causes": [{"id": "c", "cause": "oversize", "confidence": 0.5,
    "kinds": ["tpu_buffer_alloc"], "when": ")j" +
                               chain + R"j( > 1G", "summary": "s"}]})j");
  Result check = Run({"rules", "check", rules});
  EXPECT_EQ(check.code, kExitError);
  EXPECT_NE(check.err.find("nested.json:1:99: nested deeper than 64 levels"), std::string::npos) << check.err;
  EXPECT_NE(check.err.find("chain.json:2:44: /causes/0/when: bad expression at column 4625"),
            std::string::npos)
      << check.err.substr(0, 500);
  EXPECT_NE(check.err.find("expression too long"), std::string::npos);
  EXPECT_LT(check.err.size(), 2000u);  // the expression is not quoted whole

  // A JSON log line nested a million deep is text, and the OOM after it is still found.
  Result log = RunLog("{\"log\": " + std::string(1000000, '[') + std::string(1000000, ']') + "}\n" + kSeed);
  EXPECT_EQ(log.code, kExitOomFound);
  EXPECT_TRUE(FoundSeed(log));
}

// A flood of distinct failures: a report keeps 10,000 incidents and counts the
// rest's events in a warning (time and memory were quadratic: 200k incidents took
// 294 s and 4.7 GB); merge keeps the same bound.
TEST_F(BadInput, AFloodOfDistinctIncidentsIsCappedAndCounted) {
  std::string log;
  for (int k = 0; k < 10050; ++k) {
    log += "RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate " +
           std::to_string(k + 10) + ".00M. That was not possible. There are 6.43M free.; (0x0x1_HBM0)\n";
  }
  std::string path = Write("flood.log", log);
  Result r = Run({"--format", "json", path});
  EXPECT_EQ(r.code, kExitOomFound);
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["incidents"].size(), 10000u);
  EXPECT_NE(r.err.find("flood.log:10001: 50 events of further incidents were counted but not kept "
                       "(tpu_buffer_alloc 50): a report keeps 10000 distinct incidents"),
            std::string::npos)
      << r.err.substr(0, 400);
  Result merged = Run({"--format", "json", "merge", Write("a.json", r.out),
                       Write("b.json", Run({"--format", "json",
                                            Write("other.log",
                                                  "RESOURCE_EXHAUSTED: Error allocating device buffer: "
                                                  "Attempting to allocate 99999.00M. That "
                                                  "was not possible. There are 6.43M free.; (0x0x1_HBM0)\n")})
                                           .out)});
  EXPECT_EQ(nlohmann::json::parse(merged.out)["incidents"].size(), 10000u);
  EXPECT_NE(merged.err.find("1 events of further incidents were counted but not kept"), std::string::npos)
      << merged.err.substr(0, 400);
}

TEST_F(BadInput, DivisionByZeroInARuleNeverFires) {
  std::string rules = dir_ + "/zero";
  ::mkdir(rules.c_str(), 0700);
  Write("zero/div.json", R"j({"version": 1, "causes": [{"id": "div", "cause": "oversize", "confidence": 1.0,
    "kinds": ["tpu_buffer_alloc"], "when": "requested_bytes / free_bytes > 2", "summary": "ratio {requested_bytes / free_bytes:ratio}",
    "samples": [{"facts": {"requested_bytes": "1G", "free_bytes": "0B"}, "expect": false}]}]})j");
  Result check = Run({"rules", "check", rules});
  EXPECT_EQ(check.code, kExitNoOom) << check.err;
  Result r = Run({"--format", "json", "--rules", rules,
                  Write("zero.log",
                        "Error allocating device buffer: Attempting to allocate 1.00G. That was not "
                        "possible. There are 0B free.\n")});
  EXPECT_EQ(r.code, kExitOomFound);
  EXPECT_EQ(r.out.find("\"rule\": \"div\""), std::string::npos);  // absent, not infinite
}

TEST_F(BadInput, AThousandRulesLoadAndCheck) {
  std::string doc = R"({"version": 1, "signatures": [)";
  for (int i = 0; i < 1000; ++i) {
    std::string id = std::to_string(i);
    std::string entry = R"j({"id": "genID", "kind": "gen", "literals": ["GenOomID:"], "start": "GenOomID:",
      "facts": ["GenOomID: wanted (?P<requested_bytes>{size})"],
      "samples": [{"text": "GenOomID: wanted 1G", "expect": {"requested_bytes": "1G"}}]})j";
    for (size_t pos = entry.find("ID"); pos != std::string::npos; pos = entry.find("ID", pos)) {
      entry.replace(pos, 2, id);
    }
    doc += (i ? "," : "") + entry;
  }
  doc += "]}";
  std::string rules = dir_ + "/many";
  ::mkdir(rules.c_str(), 0700);
  Write("many/many.json", doc);
  Result check = Run({"rules", "check", rules});
  EXPECT_EQ(check.code, kExitNoOom) << check.err.substr(0, 500);
  Result r = Run({"--rules", rules, Write("gen.log", "GenOom999: wanted 2G\n" + std::string(kSeed))});
  EXPECT_EQ(r.code, kExitOomFound);
  EXPECT_NE(r.out.find("2 OOM incidents"), std::string::npos);
}

}  // namespace
}  // namespace oomlens
