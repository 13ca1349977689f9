// CI log scanning: inputs (directories, globs, compression, hosts), output
// formats checked against their specs' required fields, --fail-on, merge and -j.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/inputs.h"
#include "tests/cli/cli_harness.h"

namespace oomlens {
namespace {

using json = nlohmann::json;

std::string Seed(const std::string& program, const std::string& requested) {
  return "RESOURCE_EXHAUSTED: Error loading program '" + program + "': Attempting to reserve " + requested +
         " at the bottom of memory. That was not possible. There are 1.00G free, 0B reserved, and 1.00G "
         "reservable.\n";
}

class CiTest : public ::testing::Test {
 protected:
  using Result = CliResult;
  std::string Write(const std::string& name, const std::string& content) {
    return scratch_.Write(name, content);
  }
  Result Run(std::vector<std::string> args) { return RunOomlens(std::move(args)); }
  // A log with n different incidents (one program each).
  std::string ManyIncidents(int n) {
    std::string log;
    for (int k = 0; k < n; ++k) log += Seed("jit_p" + std::to_string(k), std::to_string(2 + k) + ".00G");
    return Write("many.log", log);
  }

  ScratchDir scratch_;
  const std::string dir_ = scratch_.path();
};

TEST_F(CiTest, GithubAnnotationsRespectTheRunnerLimit) {
  Result r = Run({"--format", "github", ManyIncidents(30)});
  EXPECT_EQ(r.code, kExitOomFound);
  size_t count = 0;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    EXPECT_EQ(line.rfind("::error title=", 0), 0u) << line;
    EXPECT_LE(line.size(), 4400u);
    ++count;
  }
  EXPECT_EQ(count, 10u);
  EXPECT_NE(r.out.find("title=OOM%3A 21 more incidents"), std::string::npos);  // ":" escaped in properties
  EXPECT_NE(r.out.find("%0A"), std::string::npos);                             // newlines escaped, not raw
}

TEST_F(CiTest, GithubEscapesPropertiesAndData) {
  Result r = Run({"--format", "github", Write("a,b:c.log", Seed("jit_100%", "2.00G"))});
  EXPECT_NE(r.out.find("file=" + dir_ + "/a%2Cb%3Ac.log,line=1::"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("jit_100%25"), std::string::npos);
}

TEST_F(CiTest, SarifHasTheRequiredFields) {
  Result r = Run({"--format", "sarif", ManyIncidents(3)});
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["version"], "2.1.0");
  ASSERT_EQ(doc["runs"].size(), 1u);
  const json& run = doc["runs"][0];
  EXPECT_EQ(run["tool"]["driver"]["name"], "oomlens");
  ASSERT_EQ(run["results"].size(), 3u);
  for (const auto& result : run["results"]) {
    EXPECT_TRUE(result["message"]["text"].is_string());
    EXPECT_TRUE(result["ruleId"].is_string());
    const json& location = result["locations"][0]["physicalLocation"];
    EXPECT_TRUE(location["artifactLocation"]["uri"].is_string());
    EXPECT_GE(location["region"]["startLine"].get<int>(), 1);
    bool rule_declared = false;
    for (const auto& rule : run["tool"]["driver"]["rules"])
      rule_declared = rule_declared || rule["id"] == result["ruleId"];
    EXPECT_TRUE(rule_declared);
  }
}

// A SARIF rule is the same for every result (GitHub's rule set, GH2012, asks for
// fullDescription): it says what the rule means, the figures are in each result.
TEST_F(CiTest, SarifRulesSayWhatTheyMeanNotOneIncidentsFigures) {
  json doc = json::parse(Run({"--format", "sarif", ManyIncidents(3)}).out);
  const json& rules = doc["runs"][0]["tool"]["driver"]["rules"];
  ASSERT_EQ(rules.size(), 1u) << rules.dump(2);  // three oversize loads, one rule
  std::ifstream file(std::string(OOMLENS_SOURCE_DIR) + "/rules/causes/tpu_runtime.json");
  const json rule_file = json::parse(file);  // outlives the loop over its member
  std::string description;
  for (const auto& rule : rule_file["causes"])
    if (rule["id"] == rules[0]["id"]) description = rule["description"];
  ASSERT_FALSE(description.empty()) << rules[0]["id"];
  EXPECT_EQ(rules[0]["fullDescription"]["text"], description);
  std::string help = rules[0]["help"]["text"];
  for (const char* figure : {"2.00G", "3.00G", "4.00G", "1.00G"})
    EXPECT_EQ(help.find(figure), std::string::npos) << help;
  EXPECT_NE(help.find("oomlens explain oversize"), std::string::npos) << help;
  EXPECT_TRUE(rules[0]["help"]["markdown"].is_string());
}

TEST_F(CiTest, GitlabCodeQualityWithStableFingerprints) {
  std::string first = Write("run1/job.log", "noise\n" + Seed("jit_a", "2.00G"));
  std::string second =
      Write("run2/other.log", "more noise\nand more\n" + Seed("jit_a", "2.00G") + Seed("jit_b", "3.00G"));
  json a = json::parse(Run({"--format", "gitlab", first}).out);
  json b = json::parse(Run({"--format", "gitlab", second}).out);
  ASSERT_EQ(a.size(), 1u);
  ASSERT_EQ(b.size(), 2u);
  for (const auto& issue : b) {
    for (const char* key : {"description", "check_name", "fingerprint", "severity"})
      EXPECT_TRUE(issue[key].is_string());
    EXPECT_TRUE(issue["location"]["path"].is_string());
    EXPECT_GE(issue["location"]["lines"]["begin"].get<int>(), 1);
  }
  EXPECT_EQ(a[0]["fingerprint"], b[0]["fingerprint"]);  // same failure, other run, file and line
  EXPECT_NE(b[0]["fingerprint"], b[1]["fingerprint"]);
}

TEST_F(CiTest, JsonlIsOneIncidentPerLine) {
  Result r = Run({"--format", "jsonl", ManyIncidents(4)});
  std::istringstream lines(r.out);
  int count = 0;
  for (std::string line; std::getline(lines, line); ++count) {
    json j = json::parse(line);
    EXPECT_EQ(j["schema_version"], 1);
    EXPECT_EQ(j["kind"], "tpu_program_load");
  }
  EXPECT_EQ(count, 4);
}

TEST_F(CiTest, MarkdownStaysUnderOneMebibyte) {
  Result r = Run({"--format", "markdown", ManyIncidents(5000)});
  EXPECT_LT(r.out.size(), 1000u * 1000u);
  EXPECT_EQ(r.out.rfind("## oomlens: 5,000 OOM incidents", 0), 0u);
  EXPECT_NE(r.out.find("more incidents not shown (size limit)"), std::string::npos);
}

// Attack review S3: a log line's Markdown (a remote image, a link with its own text)
// is shown as text in the report's and the fleet's table cells, not rendered: the
// step summary of a CI run is no place for a log to draw a tracking pixel.
TEST_F(CiTest, MarkdownCellsShowALogsLinksAndImagesAsText) {
  std::string log = Write("evil.log",
                          "ERROR worker: out of memory ![pixel](https://evil.example/t.png) "
                          "[details](https://evil.example/x) while allocating 4 GB on device\n");
  for (std::vector<std::string> args : {std::vector<std::string>{"--format", "markdown", "--fleet", log},
                                        std::vector<std::string>{"--format", "markdown", log}}) {
    Result r = Run(args);
    for (size_t at = r.out.find("evil.example"); at != std::string::npos;
         at = r.out.find("evil.example", at + 1)) {
      size_t line = r.out.rfind('\n', at) + 1;
      std::string text = r.out.substr(line, r.out.find('\n', at) - line);
      if (text.rfind("|", 0) != 0) continue;  // not a table row (the excerpt is fenced code)
      EXPECT_EQ(text.find("!["), std::string::npos) << text;
      for (size_t link = text.find("]("); link != std::string::npos; link = text.find("](", link + 1))
        EXPECT_EQ(text[link - 1], '\\') << "an unescaped link in " << text;
      EXPECT_NE(text.find("\\!\\[pixel\\]"), std::string::npos) << text;
    }
  }
}

TEST_F(CiTest, FailOnAndMaxIncidents) {
  std::string log = ManyIncidents(3);
  EXPECT_EQ(Run({"--fail-on", "never", log}).code, kExitNoOom);
  EXPECT_EQ(Run({"--fail-on", "fragmentation", log}).code, kExitNoOom);
  EXPECT_EQ(Run({"--fail-on", "fragmentation,oversize", log}).code, kExitOomFound);
  EXPECT_EQ(Run({"--fail-on", "tpu_program_load", log}).code, kExitOomFound);
  EXPECT_EQ(Run({"--fail-on", "bogus", log}).code, kExitError);
  Result typo = Run({"--fail-on", "fragmentaton_typo", log});  // a word with '_' was taken for a kind
  EXPECT_EQ(typo.code, kExitError);
  EXPECT_NE(typo.err.find("'fragmentaton_typo' is neither a cause nor a kind"), std::string::npos)
      << typo.err;
  EXPECT_NE(typo.err.find("fragmentation,"), std::string::npos) << "the error lists the causes: " << typo.err;
  EXPECT_EQ(Run({"--fail-on", "", log}).code, kExitError);
  Result limited = Run({"--format", "jsonl", "--max-incidents", "2", log});
  EXPECT_EQ(std::count(limited.out.begin(), limited.out.end(), '\n'), 2);
  EXPECT_EQ(limited.err, "oomlens: showing 2 of 3 incidents (--max-incidents)\n");
}

// The severity of each annotation, SARIF result and GitLab issue comes from the
// gate that decides the exit code: a run that passes shows no error.
TEST_F(CiTest, WhatDoesNotFailTheStepIsAWarningNotAnError) {
  std::string log = ManyIncidents(3);  // oversize, each
  auto count = [](const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  Result passing = Run({"--format", "github", "--fail-on", "fragmentation", log});
  EXPECT_EQ(passing.code, kExitNoOom);
  EXPECT_EQ(count(passing.out, "::warning title=OOM"), 3u) << passing.out;
  EXPECT_EQ(count(passing.out, "::error"), 0u);
  Result failing = Run({"--format", "github", "--fail-on", "oversize", log});
  EXPECT_EQ(failing.code, kExitOomFound);
  EXPECT_EQ(count(failing.out, "::error title=OOM"), 3u) << failing.out;

  json sarif = json::parse(Run({"--format", "sarif", "--fail-on", "never", log}).out);
  for (const auto& result : sarif["runs"][0]["results"]) EXPECT_EQ(result["level"], "warning");
  sarif = json::parse(Run({"--format", "sarif", log}).out);
  for (const auto& result : sarif["runs"][0]["results"]) EXPECT_EQ(result["level"], "error");

  json gitlab = json::parse(Run({"--format", "gitlab", "--fail-on", "leak", log}).out);
  for (const auto& issue : gitlab) EXPECT_EQ(issue["severity"], "minor");
  gitlab = json::parse(Run({"--format", "gitlab", "--fail-on", "tpu_program_load", log}).out);
  for (const auto& issue : gitlab) EXPECT_EQ(issue["severity"], "critical");
}

// A recovered OOM passes the default gate: its annotation is a warning.
TEST_F(CiTest, ARecoveredOomIsAWarning) {
  std::string recovered = Write("recovered.log",
                                "TpuLoadedExecutable::ExecutePrepareWithOomRetries attempting to defragment "
                                "and retry after seeing error: "
                                "RESOURCE_EXHAUSTED: Error allocating device buffer: Attempting to allocate "
                                "2.00G. That was not possible. "
                                "There are 1.50G free.\n" +
                                    Seed("jit_step", "29.49G"));
  Result r = Run({"--format", "github", recovered});
  EXPECT_EQ(r.code, kExitOomFound);
  EXPECT_NE(r.out.find("::warning title=OOM%3A tpu_oom_retried recovered"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("::error title=OOM%3A E0101 oversize"), std::string::npos) << r.out;
}

// An OOM the TPU runtime recovered from (it defragmented HBM and retried) is
// reported but fails nothing, unless --fail-on names it; a later failure does.
TEST_F(CiTest, ARecoveredOomFailsNothingByDefault) {
  std::string retry =
      "I0000 00:00:1717000000.000000 1234 tpu_executable.cc:100] "
      "TpuLoadedExecutable::ExecutePrepareWithOomRetries "
      "attempting to defragment and retry after seeing error: RESOURCE_EXHAUSTED: Error allocating device "
      "buffer: "
      "Attempting to allocate 2.00G. That was not possible. There are 1.50G free.\n";
  std::string recovered = Write("recovered.log", retry);
  Result r = Run({"--format", "json", recovered});
  EXPECT_EQ(r.code, kExitNoOom) << r.err;
  EXPECT_EQ(json::parse(r.out)["incidents"][0]["cause"], "recovered");
  EXPECT_EQ(Run({"--fail-on", "recovered", recovered}).code, kExitOomFound);
  EXPECT_EQ(Run({Write("then_failed.log", retry + Seed("jit_step", "29.49G"))}).code, kExitOomFound);
}

// A CI job whose logs or rules are missing does not pass as "no OOM found".
TEST_F(CiTest, NothingToReadOrNoRulesIsAnError) {
  Write("empty/notes.txt", "nothing here");
  Result empty = Run({"-r", dir_ + "/empty", "--include", "*.log"});
  EXPECT_EQ(empty.code, kExitError);
  EXPECT_NE(empty.err.find("no file to read in it matching --include"), std::string::npos) << empty.err;
  Result no_rules = Run({"--no-builtin-rules", ManyIncidents(1)});
  EXPECT_EQ(no_rules.code, kExitError);
  EXPECT_NE(no_rules.err.find("no signature is loaded"), std::string::npos) << no_rules.err;
}

// A cause that only a --rules folder defines can be named in --fail-on.
TEST_F(CiTest, FailOnKnowsCausesOfExtraRules) {
  std::string log = ManyIncidents(1);
  Write("rules/team.json", R"J({"version": 1, "causes": [{"id": "team_budget", "cause": "team_budget",
    "kinds": ["tpu_program_load"], "when": "has(requested_bytes)", "confidence": 0.99,
    "summary": ["Over the team's budget."]}]})J");
  std::string rules = dir_ + "/rules";
  EXPECT_EQ(Run({"--fail-on", "team_budget", log}).code, kExitError);  // unknown without the folder
  Result r = Run({"--rules", rules, "--fail-on", "team_budget", log});
  EXPECT_EQ(r.code, kExitOomFound) << r.err;
  EXPECT_EQ(Run({"--rules", rules, "--fail-on", "oversize", log}).code, kExitNoOom);
}

// Format and colour names ignore case in every use: one list, one dispatch.
TEST_F(CiTest, FormatAndColorNamesIgnoreCase) {
  std::string log = ManyIncidents(1);
  Result sarif = Run({"--format", "SARIF", log});
  EXPECT_EQ(sarif.code, kExitOomFound);
  EXPECT_EQ(json::parse(sarif.out)["version"], "2.1.0");  // was the text report
  EXPECT_EQ(Run({"--format", "Json", log}).out, Run({"--format", "json", log}).out);
  Result always = Run({"--color", "ALWAYS", log});  // acted as auto (no terminal: no colour)
  EXPECT_NE(always.out.find("\x1b["), std::string::npos);
  EXPECT_EQ(Run({"--color", "NEVER", log}).out.find("\x1b["), std::string::npos);
  EXPECT_EQ(Run({"--format", "yaml", log}).code, kExitError);
}

// -r reads regular files only and follows no symlink unless -L, where a loop is
// walked once: two self-links, a FIFO and a link to /dev/zero all end (they hung).
TEST_F(CiTest, RecursionEndsOnLoopsFifosAndDevices) {
  std::string log = Write("d/a.log", Seed("jit_x", "2.00G"));
  std::string d = dir_ + "/d";
  ASSERT_EQ(::symlink(".", (d + "/self").c_str()), 0);
  ASSERT_EQ(::symlink("../d", (d + "/again").c_str()), 0);
  ASSERT_EQ(::mkfifo((d + "/fifo").c_str(), 0600), 0);
  ASSERT_EQ(::symlink("/dev/zero", (d + "/zero.log").c_str()), 0);
  for (const char* follow : {"", "-L"}) {
    std::vector<std::string> args = {"--format", "json", "-r", d};
    if (*follow) args.insert(args.begin(), follow);
    Result r = Run(args);
    EXPECT_EQ(r.code, kExitOomFound) << follow << r.err;
    json report = json::parse(r.out);
    EXPECT_EQ(report["inputs"].size(), 1u) << follow << ": " << report["inputs"].dump();
    EXPECT_EQ(report["incidents"][0]["occurrences"], 1) << follow;
  }
}

TEST_F(CiTest, DirectoriesGlobsAndHosts) {
  Write("logs/worker-0.log", Seed("jit_x", "2.00G"));
  Write("logs/sub/worker-1.log", Seed("jit_x", "2.00G"));
  Write("logs/sub/notes.txt", Seed("jit_y", "9.00G"));
  InputOptions options;
  options.recursive = true;
  options.include = {"*.log"};
  std::vector<InputFile> files;
  std::string error;
  ASSERT_TRUE(ExpandInputs({dir_ + "/logs"}, options, &files, &error));
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].path, dir_ + "/logs/sub/worker-1.log");  // sorted, depth first
  EXPECT_EQ(files[0].host, "");  // named after the file when the reports merge (below)
  EXPECT_EQ(files[1].host, "");
  options.include.clear();
  options.exclude = {"*.txt"};
  options.host_pattern = "sub/(worker-\\d+)";
  files.clear();
  ASSERT_TRUE(ExpandInputs({dir_ + "/logs"}, options, &files, &error));
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].host, "worker-1");
  EXPECT_EQ(files[1].host, "");
  options.host_pattern = "(unclosed";
  EXPECT_FALSE(ExpandInputs({dir_ + "/logs"}, options, &files, &error));
  Result r = Run({"--format", "json", "-r", "--include", "*.log", dir_ + "/logs"});
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["incidents"][0]["occurrences"], 2);
  EXPECT_EQ(doc["incidents"][0]["hosts"], json::array({"worker-0", "worker-1"}));
  Result no_r = Run({dir_ + "/logs"});
  EXPECT_EQ(no_r.code, kExitError);
  EXPECT_NE(no_r.err.find("or -r to read it recursively"), std::string::npos);
}

TEST_F(CiTest, CompressedLogsAreReadWhateverTheirName) {
  std::string log = "noise\n" + Seed("jit_z", "5.00G");
  std::string gz = Gzip(log);
  std::string zst(ZSTD_compressBound(log.size()), '\0');
  zst.resize(ZSTD_compress(zst.data(), zst.size(), log.data(), log.size(), 3));
  for (const auto& path : {Write("a.log.gz", gz), Write("b.log", zst), Write("c.gz", gz + gz)}) {
    Result r = Run({"--format", "json", path});
    EXPECT_EQ(r.code, kExitOomFound) << path << r.err;
    EXPECT_NE(r.out.find("\"program\": \"jit_z\""), std::string::npos) << path;
  }
  Result cut = Run({Write("cut.gz", gz.substr(0, gz.size() / 2))});
  EXPECT_EQ(cut.code, kExitError);
  EXPECT_NE(cut.err.find("truncated file?"), std::string::npos) << cut.err;
}

// A zstd frame whose window exceeds 8 MiB (zstd --long=27) would cost 128 MiB per
// input: it is refused with the reason and the way to read it, not decompressed.
TEST_F(CiTest, AZstdWindowOverTheLimitIsRefusedWithTheWayOut) {
  std::string log =
      Seed("jit_long", "5.00G") + std::string(24 << 20, '\n');  // the frame header asks for its window
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_windowLog, 27);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_enableLongDistanceMatching, 1);
  std::string zst(ZSTD_compressBound(log.size()), '\0');
  zst.resize(ZSTD_compress2(cctx, zst.data(), zst.size(), log.data(), log.size()));
  ZSTD_freeCCtx(cctx);
  Result r = Run({Write("long.log.zst", zst)});
  EXPECT_EQ(r.code, kExitError);
  EXPECT_NE(r.err.find("zstd window larger than 8 MiB (made with --long?)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("zstd -dc --long=31 FILE | oomlens"), std::string::npos);
}

// Decided in docs/reliability.md: what gzip -dc reads, oomlens reads (zeros padding
// a gzip file, a .gz.gz); UTF-16 logs are read as text; a message followed by a
// progress bar's carriage returns is still a message.
TEST_F(CiTest, PaddedNestedUtf16AndCarriageReturnLogsAreRead) {
  std::string log = "noise\n" + Seed("jit_w", "5.00G");
  std::string zst(ZSTD_compressBound(log.size() + 64), '\0');
  std::string gz = Gzip(log);
  zst.resize(ZSTD_compress(zst.data(), zst.size(), gz.data(), gz.size(), 3));
  auto utf16 = [](const std::string& text, bool big_endian, bool bom) {
    std::string out = bom ? (big_endian ? std::string("\xFE\xFF", 2) : std::string("\xFF\xFE", 2)) : "";
    for (char c : text) out += big_endian ? std::string(1, '\0') + c : std::string(1, c) + '\0';
    return out;
  };
  std::string last_line = Seed("jit_w", "5.00G");
  last_line.pop_back();
  const std::pair<std::string, std::string> cases[] = {
      {"padded.gz", gz + std::string(512, '\0')},
      {"nested.gz.gz", Gzip(gz)},
      {"gz-in.zst", zst},
      {"le.log", utf16(log, false, true)},
      {"be.log", utf16(log, true, false)},
      {"cr.log", "noise\r" + last_line + "\rprogress 50%\rprogress 100%\r\n"}};
  for (const auto& [name, content] : cases) {
    Result r = Run({"--format", "json", Write(name, content)});
    EXPECT_EQ(r.code, kExitOomFound) << name << ": " << r.err;
    EXPECT_NE(r.out.find("\"program\": \"jit_w\""), std::string::npos) << name;
  }
  Result junk =
      Run({Write("junk.gz", gz + std::string(8, '\0') + "junk")});  // not zeros only: still an error
  EXPECT_EQ(junk.code, kExitError);
}

// A checksum error at the end of a gzip log: what was inflated before it (the
// log's end, where the OOM usually is) is scanned, then the error said.
TEST_F(CiTest, ACorruptChecksumKeepsWhatWasDecompressed) {
  std::string log;
  for (int k = 0; k < 40000; ++k)
    log += "I1130 12:00:00.000000  1 train.py:1] step " + std::to_string(k) + " loss=2.3\n";
  log += Seed("jit_end", "5.00G");
  std::string gz = Gzip(log);
  gz[gz.size() - 8] = static_cast<char>(gz[gz.size() - 8] ^ 0xff);  // the CRC32 of the trailer
  Result r = Run({"--format", "json", Write("crc.log.gz", gz)});
  EXPECT_EQ(r.code, kExitError);
  EXPECT_NE(r.out.find("\"program\": \"jit_end\""), std::string::npos) << "the end was lost";
  EXPECT_NE(r.err.find("corrupt gzip data: incorrect data check"), std::string::npos) << r.err;
}

// text as one zstd frame with a checksum.
std::string ZstdFrame(const std::string& text) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  std::string zst(ZSTD_compressBound(text.size()), '\0');
  zst.resize(ZSTD_compress2(cctx, zst.data(), zst.size(), text.data(), text.size()));
  ZSTD_freeCCtx(cctx);
  return zst;
}

// zstd checksums are checked on every frame (frames spanning several reads, a
// skippable frame between them), and a wrong one keeps the frame's end: libzstd
// held a frame's last block back to check it, so a corrupt frame lost the OOM.
TEST_F(CiTest, ZstdChecksumsAreCheckedAndAWrongOneKeepsTheFramesEnd) {
  std::string noise;
  uint64_t x = 1;
  for (int k = 0; k < 20000; ++k) {  // hard to compress: frames of about 200 KiB
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    noise += "I1130 12:00:00.000000  1 train.py:1] step " + std::to_string(x) + "\n";
  }
  std::string skippable(
      "\x50\x2a\x4d\x18\x03\x00\x00\x00"
      "abc",
      11);
  std::string zst = ZstdFrame("tiny\n") + ZstdFrame("a line under 32\n") + ZstdFrame(noise) + skippable +
                    ZstdFrame(noise + Seed("jit_end", "5.00G"));
  ASSERT_GT(zst.size(), 2 * ZSTD_DStreamInSize());
  Result ok = Run({"--format", "json", Write("frames.log.zst", zst)});
  EXPECT_EQ(ok.code, kExitOomFound) << ok.err;
  EXPECT_EQ(ok.err.find("checksum"), std::string::npos) << ok.err;
  zst[zst.size() - 1] = static_cast<char>(zst[zst.size() - 1] ^ 0xff);  // the last frame's checksum
  Result bad = Run({"--format", "json", Write("bad.log.zst", zst)});
  EXPECT_EQ(bad.code, kExitError);
  EXPECT_NE(bad.out.find("\"program\": \"jit_end\""), std::string::npos) << "the frame's end was lost";
  EXPECT_NE(bad.err.find("corrupt zstd data: the frame's checksum does not match what it decompressed to"),
            std::string::npos)
      << bad.err;
}

TEST_F(CiTest, MergeOfPerHostReportsEqualsOneRun) {
  std::vector<std::string> logs = {
      Write("host-a.log", Seed("jit_x", "2.00G") + Seed("jit_y", "3.00G")),
      Write("host-b.log", "noise\n" + Seed("jit_x", "2.00G")),
      Write("host-c.log",
            Seed("jit_x", "2.00G").replace(Seed("jit_x", "2.00G").find("1.00G free"), 5, "1.50G")),
  };
  std::vector<std::string> one_run = {"--format", "json", "--host-from-path", "(host-\\w)"};
  one_run.insert(one_run.end(), logs.begin(), logs.end());
  Result all = Run(one_run);
  std::vector<std::string> merge = {"--format", "json", "merge"};
  for (size_t k = 0; k < logs.size(); ++k) {
    Result part = Run({"--format", "json", "--host-from-path", "(host-\\w)", logs[k]});
    merge.push_back(Write("report-" + std::to_string(k) + ".json", part.out));
  }
  Result merged = Run(merge);
  EXPECT_EQ(merged.code, all.code);
  EXPECT_EQ(json::parse(merged.out), json::parse(all.out));
  EXPECT_NE(all.out.find("\"occurrences\": 3"), std::string::npos);
  const json jit_x = json::parse(merged.out)["incidents"][0];
  EXPECT_EQ(jit_x["seen"]["inputs"], json::parse("[0, 1, 2]")) << "jit_x was seen in the three files";
  Result bad = Run({"merge", logs[0]});
  EXPECT_EQ(bad.code, kExitError);
  EXPECT_NE(bad.err.find("not a JSON document (help: merge takes reports written with --format json)"),
            std::string::npos);
}

TEST_F(CiTest, ParallelReadingGivesTheSameReport) {
  std::vector<std::string> args = {"--format", "json"};
  for (int k = 0; k < 6; ++k) {
    args.push_back(
        Write("w" + std::to_string(k) + ".log",
              std::string(k * 100, '\n') + Seed("jit_x", "2.00G") + (k % 2 ? Seed("jit_odd", "4.00G") : "")));
  }
  Result serial = Run(args);
  args.insert(args.begin(), {"-j", "3"});
  Result parallel = Run(args);
  EXPECT_EQ(parallel.out, serial.out);
  EXPECT_EQ(parallel.code, serial.code);
}

// Each file is one job's log: -j 1, -j N, `merge` of the per-file reports and
// `merge` of merged shards give the same bytes, on every bundled log folder and on random sets of bundled
// logs (a series or a consequence never reaches from one file into another).
TEST_F(CiTest, AnyJobsAndMergeOfPerFileReportsGiveTheSameBytes) {
  ASSERT_EQ(::chdir(OOMLENS_SOURCE_DIR), 0);  // inputs are named by their path in the tree
  InputOptions options;
  options.recursive = true;
  std::vector<InputFile> all;
  std::string error;
  ASSERT_TRUE(ExpandInputs({"testdata/logs"}, options, &all, &error)) << error;
  ASSERT_GT(all.size(), 50u);
  std::vector<std::vector<std::string>> sets;
  sets.push_back({"testdata/logs/tpu_runtime/e0100_fragmentation_wrapped.log",
                  "testdata/logs/series/maxtext_memstats_growth_then_e0100.log"});  // the issue's pair
  // One file given twice, inside a shard: its incident was placed at the file's last
  // position when the shard was read back, and came after the next file's.
  sets.push_back(
      {"testdata/logs/host/docker_compose_exit_137.log", "testdata/logs/gpu/cuda_error_out_of_memory.log",
       "testdata/logs/host/std_bad_alloc.log", "testdata/logs/gpu/pytorch_markdown_escaped.log",
       "testdata/logs/gpu/pytorch_old_fragmentation.log", "testdata/logs/gpu/pytorch_markdown_escaped.log"});
  std::mt19937 random(20261201);
  for (int k = 0; k < 6; ++k) {
    std::vector<std::string> set;
    size_t n = 2 + random() % 12;
    for (size_t m = 0; m < n; ++m) set.push_back(all[random() % all.size()].path);
    sets.push_back(set);
  }
  std::vector<std::string> folders;
  for (const auto& f : all) {
    std::string folder = f.path.substr(0, f.path.rfind('/'));
    if (folders.empty() || folders.back() != folder) folders.push_back(folder);
  }
  for (const auto& folder : folders) sets.push_back({"-r", folder});
  for (const auto& set : sets) {
    std::vector<std::string> args = {"--format", "json", "-q"};
    args.insert(args.end(), set.begin(), set.end());
    std::vector<std::string> one = args, two = args, four = args;
    one.insert(one.begin(), {"-j", "1"});
    two.insert(two.begin(), {"-j", "2"});
    four.insert(four.begin(), {"-j", "4"});
    Result serial = Run(one);
    std::string what = set.front() + " ... (" + std::to_string(set.size()) + ")";
    EXPECT_EQ(Run(two).out, serial.out) << what;
    EXPECT_EQ(Run(four).out, serial.out) << what;
    std::vector<std::string> merge = {"--format", "json", "-q", "merge"};
    const json report = json::parse(serial.out);  // kept: a range over a temporary's member would dangle
    for (const auto& input : report["inputs"]) {
      Result part = Run({"--format", "json", "-q", input["name"].get<std::string>()});
      merge.push_back(Write("part-" + std::to_string(merge.size()) + ".json", part.out));
    }
    if (merge.size() < 6) continue;  // one file: nothing to merge
    Result merged = Run(merge);
    EXPECT_EQ(merged.out, serial.out) << what;
    EXPECT_EQ(merged.code, serial.code) << what;
    // Shards of three merged, then the shards' reports merged (a Slurm array, a
    // fleet's tree reduction): outliers are compared again with the merged first.
    std::vector<std::string> shards = {"--format", "json", "-q", "merge"};
    for (size_t k = 4; k < merge.size(); k += 3) {
      std::vector<std::string> shard = {"--format", "json", "-q", "merge"};
      shard.insert(shard.end(), merge.begin() + k, merge.begin() + std::min(k + 3, merge.size()));
      shards.push_back(Write("shard-" + std::to_string(shards.size()) + ".json", Run(shard).out));
    }
    EXPECT_EQ(Run(shards).out, serial.out) << what;
  }
}

TEST_F(CiTest, OutputIsDeterministic) {
  std::string log = ManyIncidents(20);
  for (const char* format : {"text", "json", "jsonl", "markdown", "github", "sarif", "gitlab"}) {
    EXPECT_EQ(Run({"--format", format, log}).out, Run({"--format", format, log}).out) << format;
  }
}

}  // namespace
}  // namespace oomlens
