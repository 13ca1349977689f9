#include "cli/cli.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "oomlens/render.h"
#include "oomlens/rules.h"
#include "tests/cli/cli_harness.h"

namespace oomlens {
namespace {

const std::string kSource = OOMLENS_SOURCE_DIR;
const std::string kExample = kSource + "/testdata/examples/multihost_e0101.log";

using CliRun = CliResult;

CliRun Cli(std::vector<std::string> args, Console console = {}) {
  return RunOomlens(std::move(args), console);
}

TEST(Cli, FindsTheOomAndExitsOne) {
  CliRun r = Cli({"--color", "never", kExample});
  EXPECT_EQ(r.code, kExitOomFound);
  EXPECT_EQ(r.out.substr(0, 28), "oomlens: 1 OOM incident in /");
  EXPECT_NE(r.out.find("partitions 0-255 (256)"), std::string::npos);
  EXPECT_EQ(r.err, "");
}

TEST(Cli, NoOomExitsZero) {
  CliRun r = Cli({kSource + "/testdata/logs/negative/quota_429_resource_exhausted.log"});
  EXPECT_EQ(r.code, kExitNoOom);
  EXPECT_NE(r.out.find("no OOM found"), std::string::npos);
}

TEST(Cli, MissingFileIsAnErrorButOtherFilesAreStillRead) {
  CliRun r = Cli({"--format", "json", "/nonexistent.log", kExample});
  EXPECT_EQ(r.code, kExitError);
  EXPECT_EQ(r.err, "oomlens: error: /nonexistent.log: No such file or directory (help: check the path)\n");
  EXPECT_NE(r.out.find("\"occurrences\": 256"), std::string::npos);
}

// The first line says what was found and what was read; it never claims a verdict
// on nothing (newcomer review, issue 32 item 8).
TEST(Cli, TheFirstLineSaysWhatWasReadAndWhatWasFound) {
  CliRun missing = Cli({"/nonexistent.log"});
  EXPECT_EQ(missing.code, kExitError);
  EXPECT_EQ(missing.out.substr(0, missing.out.find('\n')),
            "oomlens: no verdict: nothing was read (/nonexistent.log could not be read)");
  CliRun directory = Cli({kSource + "/testdata/examples"});
  EXPECT_EQ(directory.code, kExitError);
  EXPECT_NE(directory.out.find("oomlens: no verdict: nothing was read"), std::string::npos) << directory.out;
  CliRun one_missing = Cli({"/nonexistent.log", kExample});
  EXPECT_NE(one_missing.out.find("(1,260 lines); 1 input could not be read"), std::string::npos)
      << one_missing.out;
  CliRun one_line = Cli({kSource + "/testdata/logs/negative/quota_429_resource_exhausted.log"});
  EXPECT_NE(one_line.out.find("(1 line)\n"), std::string::npos) << one_line.out;
}

TEST(Cli, AShortenedListStillCountsEveryIncident) {
  std::string log = ::testing::TempDir() + "/three_oversize.log";
  {
    std::ofstream out(log);
    for (int k = 1; k <= 3; ++k)
      out << "RESOURCE_EXHAUSTED: Error loading program 'jit_p" << k
          << "': Attempting to reserve 40.00G at the bottom of memory. That was not possible. There are "
             "10.00G free, 0B reserved, and 10.00G reservable.\n";
  }
  CliRun r = Cli({"--max-incidents", "1", log});
  EXPECT_EQ(r.out.substr(0, r.out.find(" in ")),
            "oomlens: 3 OOM incidents (the first 1 shown: --max-incidents)");
  CliRun md = Cli({"--max-incidents", "1", "--format", "markdown", log});
  EXPECT_EQ(md.out.substr(0, md.out.find('\n')),
            "## oomlens: 3 OOM incidents (the first 1 shown: --max-incidents)");
}

TEST(Cli, HelpAsAWordPrintsTheHelp) {
  CliRun r = Cli({"help"});
  EXPECT_EQ(r.code, kExitNoOom);
  EXPECT_EQ(r.out.find("no OOM found"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Usage"), std::string::npos) << r.out;
}

TEST(Cli, TerminalStdinWithoutFilesTakesAPaste) {
  Console console;
  console.stdin_is_terminal = true;
  console.stdin_fd =
      ::open((kSource + "/testdata/logs/tpu_runtime/e0101_seed_openxla_doc.log").c_str(), O_RDONLY);
  CliRun r = Cli({}, console);
  ::close(console.stdin_fd);
  EXPECT_EQ(r.code, kExitOomFound);
  EXPECT_EQ(r.err, "Paste the log, then press Ctrl-D (Ctrl-Z then Enter on Windows).\n");
  EXPECT_NE(r.out.find("jit_embedding_pipeline_step_fn"), std::string::npos);
}

TEST(Cli, ExplainComesFromTheRules) {
  CliRun r = Cli({"explain", "--detail", "E0101"});
  EXPECT_EQ(r.code, kExitNoOom);
  EXPECT_EQ(r.out.substr(0, 47), "E0101 (tpu_program_load): TPU program load fail");
  EXPECT_NE(r.out.find("reservable_bytes"), std::string::npos);
  EXPECT_NE(r.out.find("fragmentation (rule tpu_program_load.fragmentation, confidence 0.85)"),
            std::string::npos);
  EXPECT_NE(r.out.find("when: requested_bytes > 0 and free_bytes >= requested_bytes and requested_bytes > "
                       "largest_contiguous_bytes"),
            std::string::npos);
  EXPECT_NE(r.out.find("https://openxla.org/xla/errors/error_0101"), std::string::npos);
  EXPECT_EQ(Cli({"explain", "fragmentation"}).code, kExitNoOom);
  EXPECT_EQ(Cli({"explain", "pytorch_cuda"}).code, kExitNoOom);
  CliRun unknown = Cli({"explain", "E9999"});
  EXPECT_EQ(unknown.code, kExitError);
  EXPECT_EQ(unknown.err.substr(0, 40), "oomlens: error: explain E9999: no error ");
}

// Plainly first (newcomer review, issue 32 item 9): what the topic means in the
// rules' own sentences, where to read more, one sentence per rule; conditions and
// templates only with --detail.
TEST(Cli, ExplainLeadsWithWhatItMeansAndWhereToReadMore) {
  CliRun cause = Cli({"explain", "fragmentation"});
  EXPECT_EQ(cause.out.rfind("fragmentation: In total enough memory was free", 0), 0u) << cause.out;
  EXPECT_LT(cause.out.find("Read more: https://"), cause.out.find("\n\n")) << "the link comes first";
  for (const char* raw : {"when:", "{", "unknown", ">="})
    EXPECT_EQ(cause.out.find(raw), std::string::npos) << raw;
  EXPECT_NE(cause.out.find("(bfc.fragmentation, confidence 0.80)"), std::string::npos) << cause.out;
  std::istringstream lines(cause.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("https://") == std::string::npos) {
      EXPECT_LE(line.size(), 88u) << line;
    }
  }
  CliRun code = Cli({"explain", "E0101"});
  EXPECT_NE(code.out.find("Read more: https://openxla.org/xla/errors/error_0101"), std::string::npos);
  EXPECT_NE(code.out.find("\n  oversize   "), std::string::npos) << "each cause it tells apart: " << code.out;
  EXPECT_EQ(code.out.find("reservable_bytes"), std::string::npos) << "the figures read are detail";
}

TEST(Cli, ExplainSaysWhatACauseOfNewRulesIsWithoutAMeaning) {
  ScratchDir dir;
  dir.Write("extra.json", R"json({"version": 1, "causes": [{"id": "x.swap", "cause": "swap_exhausted",
      "kinds": ["host_oom_killer"], "when": "has(pid)", "confidence": 0.3, "summary": ["Swap ran out."],
      "samples": [{"kind": "host_oom_killer", "facts": {"pid": 7}, "expect": true}]}]})json");
  CliRun r = Cli({"--rules", dir.path(), "explain", "swap_exhausted"});
  EXPECT_EQ(r.code, kExitNoOom) << r.err;
  EXPECT_EQ(r.out.rfind("swap_exhausted: a cause oomlens can decide.", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("Out of memory, decided as swap_exhausted by this rule. (x.swap"), std::string::npos)
      << r.out;
}

TEST(Cli, HtmlReportIsSelfContainedAndEscaped) {
  CliRun r = Cli({"--format", "html", kSource + "/testdata/examples/multihost_e0101.log"});
  EXPECT_EQ(r.code, kExitOomFound);
  EXPECT_EQ(r.out.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(r.out.find("Content-Security-Policy"), std::string::npos);
  EXPECT_NE(r.out.find("<svg"), std::string::npos);
  EXPECT_EQ(r.out.find("<script"), std::string::npos);
  EXPECT_EQ(r.out.find("src=\"http"), std::string::npos);
}

TEST(Cli, ReadsStdin) {
  Console console;
  console.stdin_fd = ::open(kExample.c_str(), O_RDONLY);
  ASSERT_GE(console.stdin_fd, 0);
  CliRun r = Cli({"-"}, console);
  ::close(console.stdin_fd);
  EXPECT_EQ(r.code, kExitOomFound);
  EXPECT_NE(r.out.find("<stdin>"), std::string::npos);
}

TEST(Cli, UsageErrorsExitTwo) {
  CliRun bad_format = Cli({"--format", "yaml", kExample});
  EXPECT_EQ(bad_format.code, kExitError);
  EXPECT_EQ(bad_format.err.substr(0, 24), "oomlens: error: --format");
  EXPECT_EQ(Cli({"--frobnicate"}).code, kExitError);
  CliRun chip = Cli({"--chip", "v99", kExample});
  EXPECT_EQ(chip.code, kExitError);
  EXPECT_EQ(chip.err.substr(0, 44), "oomlens: error: --chip v99: unknown chip (he");
}

TEST(Cli, HelpFitsAScreenAndListsTheSubcommands) {
  CliRun help = Cli({"--help"});
  EXPECT_EQ(help.code, kExitNoOom);
  EXPECT_LE(std::count(help.out.begin(), help.out.end(), '\n'), 50) << help.out;
  for (const char* sub : {"rules", "explain", "serve", "merge", "diff"}) {
    EXPECT_NE(help.out.find("\n  " + std::string(sub) + " "), std::string::npos) << sub;
  }
}

TEST(Cli, HelpIsWrittenForPeopleNotByTheParser) {
  CliRun help = Cli({"--help"});
  EXPECT_EQ(help.out.find("->"), std::string::npos) << "no enum map: " << help.out;
  EXPECT_EQ(help.out.find("ENUM"), std::string::npos);
  EXPECT_NE(help.out.find("-f,--format FORMAT[=FILE]"), std::string::npos);
  EXPECT_NE(help.out.find("text, json, jsonl, markdown, github, sarif, gitlab or html"), std::string::npos);
  EXPECT_NE(help.out.find("--color WHEN"), std::string::npos);
}

TEST(Cli, AMistypedNameGetsTheNameItWasMeantToBe) {
  struct Case {
    std::vector<std::string> args;
    std::string hint;
  };
  for (const Case& c :
       std::vector<Case>{{{"--formt", "json", kExample}, "(did you mean '--format'?)"},
                         {{"--format", "jsno", kExample}, "(did you mean 'json'?)"},
                         {{"--format", "SARFI", kExample}, "(did you mean 'sarif'?)"},
                         {{"--color", "alway", kExample}, "(did you mean 'always'?)"},
                         {{"--fail-on", "fragmentaton", kExample}, "(did you mean 'fragmentation'?)"},
                         {{"explain", "E0110"}, "(did you mean 'E0100'?)"},
                         {{"explain", "pytorch_cdua"}, "(did you mean 'pytorch_cuda'?)"}}) {
    CliRun r = Cli(c.args);
    EXPECT_EQ(r.code, kExitError) << c.args[1];
    EXPECT_NE(r.err.find(c.hint), std::string::npos) << r.err;
  }
  CliRun far = Cli({"--format", "yaml", kExample});  // nothing close: no guess
  EXPECT_EQ(far.err.find("did you mean"), std::string::npos) << far.err;
}

// One scan writes several formats (--format FORMAT=FILE), each as a run of its own would.
TEST(Cli, OneRunWritesEveryFormatItIsGiven) {
  ScratchDir dir;
  std::string md = dir.path() + "/summary.md", sarif = dir.path() + "/o.sarif", json = dir.path() + "/r.json";
  CliRun all = Cli({"--format", "github", "--format", "markdown=" + md, "--format", "sarif=" + sarif,
                    "--format", "JSON=" + json, kExample});
  EXPECT_EQ(all.code, kExitOomFound) << all.err;
  EXPECT_EQ(all.out, Cli({"--format", "github", kExample}).out);
  EXPECT_EQ(ReadFile(md), Cli({"--format", "markdown", kExample}).out);
  EXPECT_EQ(ReadFile(sarif), Cli({"--format", "sarif", kExample}).out);
  EXPECT_EQ(ReadFile(json), Cli({"--format", "json", kExample}).out);
  CliRun files_only = Cli({"--format", "text=" + dir.path() + "/t.txt", kExample});
  EXPECT_EQ(files_only.out, "") << "every format has a file: stdout gets none";
  EXPECT_EQ(ReadFile(dir.path() + "/t.txt"), Cli({"--color", "never", kExample}).out);
}

TEST(Cli, OutputsThatCannotBeAreRefusedBeforeTheScan) {
  ScratchDir dir;
  struct Case {
    std::vector<std::string> args;
    std::string error;
  };
  for (const Case& c : std::vector<Case>{
           {{"--format", "json", "--format", "text", kExample},
            "a second format for stdout (json is the first)"},
           {{"--format", "json=a.json", "--format", "sarif=a.json", kExample}, "a.json is given twice"},
           {{"--format", "json=", kExample}, "no file after '='"},
           {{"--format", "json=/nonexistent/dir/r.json", kExample}, "cannot write /nonexistent/dir/r.json"},
           {{"--fleet", "--format", "sarif=" + dir.path() + "/x", kExample}, "--fleet writes text, json"},
           {{"diff", kExample, kExample, "--format", "json=" + dir.path() + "/d.json"}, "not 'diff'"}}) {
    CliRun r = Cli(c.args);
    EXPECT_EQ(r.code, kExitError);
    EXPECT_NE(r.err.find(c.error), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "") << "refused before anything was scanned";
  }
}

TEST(Cli, VersionNamesReleaseRevisionAndRules) {
  CliRun version = Cli({"--version"});
  EXPECT_EQ(version.code, kExitNoOom);
  // e.g. "oomlens 0.1.0 (git 2592741b7815, rules 1be5de92: 43 signatures, 37 cause rules)"
  std::string re_like = version.out;
  EXPECT_EQ(re_like.substr(0, 8), "oomlens ");
  EXPECT_NE(re_like.find(" (git "), std::string::npos) << re_like;
  EXPECT_NE(re_like.find(", rules " + BuiltinRulesVersion() + ": "), std::string::npos) << re_like;
  EXPECT_NE(re_like.find(" signatures, "), std::string::npos) << re_like;
  EXPECT_EQ(BuiltinRulesVersion().size(), 8u);
}

TEST(Cli, ColorFollowsTheTerminalAndNoColor) {
  Console tty;
  tty.stdout_is_terminal = true;
  EXPECT_NE(Cli({kExample}, tty).out.find("\x1b["), std::string::npos);
  Console no_color = tty;
  no_color.getenv = [](const char* name) -> const char* {
    return std::string(name) == "NO_COLOR" ? "1" : nullptr;
  };
  EXPECT_EQ(Cli({kExample}, no_color).out.find("\x1b["), std::string::npos);
  EXPECT_NE(Cli({"--color", "always", kExample}).out.find("\x1b["), std::string::npos);
}

TEST(Cli, RulesCheckPassesOnBuiltinRules) {
  CliRun r = Cli({"rules", "check"});
  EXPECT_EQ(r.code, kExitNoOom) << r.err;
  EXPECT_EQ(r.out.substr(0, 9), "rules ok:");
}

TEST(Cli, RulesCheckReportsEveryProblemOfABrokenFolder) {
  CliRun r = Cli({"rules", "check", kSource + "/testdata/bad-rules"});
  EXPECT_EQ(r.code, kExitError);
  std::string prefix = "oomlens: error: " + kSource + "/testdata/bad-rules/";
  EXPECT_NE(r.err.find(prefix + "bad_json.json:4:4: invalid JSON"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(prefix + "bad_regex.json:7:16: /signatures/0/start: invalid regex: missing ): "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(prefix + "sample_fails.json:10:19: sample not recognised by signature 'demo_oom'"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(prefix + "duplicate_key.json:11:7: /causes/0/advice: the key 'advice' appears twice"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("oomlens: error: 4 problems in the rules"), std::string::npos) << r.err;
}

TEST(Cli, BrokenRulesStopAScan) {
  CliRun r = Cli({"--rules", kSource + "/testdata/bad-rules", kExample});
  EXPECT_EQ(r.code, kExitError);
  EXPECT_EQ(r.out, "");
}

TEST(Cli, RulesListAndFacts) {
  CliRun list = Cli({"rules", "list"});
  EXPECT_EQ(list.code, kExitNoOom);
  EXPECT_NE(list.out.find("signature\ttpu_program_load\ttpu_program_load\trules/signatures/tpu_runtime.json"),
            std::string::npos);
  CliRun facts = Cli({"rules", "facts"});
  EXPECT_NE(facts.out.find("requested_bytes\tsize\tread\t"), std::string::npos);
}

// Whether word occurs in text between characters that cannot be part of a name.
bool HasWord(const std::string& text, const std::string& word) {
  auto name_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; };
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
    bool starts = at == 0 || !name_char(text[at - 1]);
    bool ends = at + word.size() == text.size() || !name_char(text[at + word.size()]);
    if (starts && ends) return true;
  }
  return false;
}

// Completions take formats, colours, causes and kinds from where they are defined.
TEST(Cli, CompletionsListEveryFormatCauseAndKindOfTheRules) {
  RuleSet rules;
  std::vector<Problem> problems;
  ASSERT_TRUE(rules.LoadBuiltin(&problems));
  for (const char* shell : {"bash", "zsh", "fish"}) {
    CliRun r = Cli({"completions", shell});
    ASSERT_EQ(r.code, kExitNoOom) << shell << ": " << r.err;
    EXPECT_EQ(r.out.find("@FORMATS@"), std::string::npos) << shell << ": a placeholder was left";
    for (const auto& name : FormatNames()) EXPECT_TRUE(HasWord(r.out, name)) << shell << " " << name;
    for (const auto& cause : rules.Causes()) EXPECT_TRUE(HasWord(r.out, cause)) << shell << " " << cause;
    for (const auto& kind : rules.IncidentKinds()) EXPECT_TRUE(HasWord(r.out, kind)) << shell << " " << kind;
  }
  EXPECT_EQ(Cli({"completions", "powershell"}).code, kExitError);
}

TEST(Cli, BashCompletesFailOnFromTheRules) {
  if (std::system("command -v bash >/dev/null 2>&1") != 0) GTEST_SKIP() << "no bash";
  ScratchDir scratch;
  std::string script = scratch.Write("oomlens.bash", Cli({"completions", "bash"}).out);
  std::string out = scratch.path() + "/out";
  std::string command =
      "bash -c 'source " + script +
      "; COMP_WORDS=(oomlens --fail-on fragm); COMP_CWORD=2; _oomlens; echo ${COMPREPLY[*]}' > " + out;
  ASSERT_EQ(std::system(command.c_str()), 0);
  EXPECT_EQ(ReadFile(out), "fragmentation\n");
}

}  // namespace
}  // namespace oomlens
