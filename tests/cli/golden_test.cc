// Golden tests: every testdata/logs/**/*.log, testdata/examples/*.log and memory
// record (testdata/records/*.pickle, *.pickle.gz, *.prof, *-memory-usage-report.txt,
// *-buffer-assignment.txt) is run
// through the CLI in each format and compared byte for byte with
// testdata/expected/<same path>.<txt|json>.
// To approve changed output: OOMLENS_UPDATE_GOLDEN=1 build/unit_tests --gtest_filter='Golden*'
// and review the diff.
#include <dirent.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/cli.h"
#include "tests/cli/cli_harness.h"

namespace oomlens {
namespace {

const std::string kSource = OOMLENS_SOURCE_DIR;

std::vector<std::string> AllLogs() {
  std::vector<std::string> logs;
  FindFiles(kSource + "/testdata/logs", ".log", &logs);
  FindFiles(kSource + "/testdata/examples", ".log", &logs);
  FindFiles(kSource + "/testdata/records", ".pickle", &logs);
  FindFiles(kSource + "/testdata/records", ".pickle.gz", &logs);
  FindFiles(kSource + "/testdata/records", ".prof", &logs);
  FindFiles(kSource + "/testdata/records", "-memory-usage-report.txt", &logs);
  FindFiles(kSource + "/testdata/records", "-buffer-assignment.txt", &logs);
  for (auto& log : logs) log = log.substr(kSource.size() + 1);  // tests name inputs by their path in the tree
  std::sort(logs.begin(), logs.end());
  return logs;
}

class Golden : public ::testing::TestWithParam<std::string> {};

TEST_P(Golden, MatchesExpectedOutput) {
  ASSERT_EQ(::chdir(kSource.c_str()), 0);  // inputs are named by their path in the tree
  const std::string log = GetParam();
  std::string path = log.substr(std::string("testdata/").size());
  const std::string stem = "testdata/expected/" + path.substr(0, path.find('.', path.rfind('/')));
  for (const char* format : {"text", "json"}) {
    const char* argv[] = {"oomlens", "--color", "never", "--format", format, log.c_str()};
    std::ostringstream out, err;
    int code = RunCli(6, argv, out, err, Console{});
    EXPECT_EQ(err.str().find("error:"), std::string::npos) << err.str();
    bool found = out.str().find("no OOM found") == std::string::npos &&
                 out.str().find("\"incidents\": []") == std::string::npos;
    EXPECT_EQ(code, found ? kExitOomFound : kExitNoOom) << log;
    std::string expected_path = stem + (std::string(format) == "text" ? ".txt" : ".json");
    const char* update = std::getenv("OOMLENS_UPDATE_GOLDEN");
    if (update && std::string(update) == "1") {
      std::string dir = expected_path.substr(0, expected_path.rfind('/'));
      ASSERT_EQ(std::system(("mkdir -p '" + dir + "'").c_str()), 0);
      std::ofstream(expected_path, std::ios::binary) << out.str();
      continue;
    }
    std::string expected = ReadFile(expected_path);
    ASSERT_FALSE(expected.empty()) << expected_path
                                   << " is missing; run with OOMLENS_UPDATE_GOLDEN=1 and review it";
    EXPECT_EQ(FirstDifference(out.str(), expected), "")
        << "output of " << log << " (" << format << ") changed; if intended, rerun with "
        << "OOMLENS_UPDATE_GOLDEN=1 and review the diff";
  }
}

// Whether line says the cause is not what it is: "not fragmentation", "no sign of a leak".
bool Denies(const std::string& line, const std::string& cause) {
  for (const std::string& denial : {"not " + cause, "no sign of a " + cause, "no " + cause}) {
    for (size_t at = line.find(denial); at != std::string::npos; at = line.find(denial, at + 1)) {
      size_t end = at + denial.size();
      bool word =
          end == line.size() || !(std::isalnum(static_cast<unsigned char>(line[end])) || line[end] == '_');
      if (word) return true;
    }
  }
  return false;
}

// No evidence line under a verdict, an alternative's or the verdict's own, denies the
// verdict without saying that sources disagree (newcomer review, issue 32 item 7).
TEST_P(Golden, NoEvidenceDeniesTheVerdictUnsaid) {
  ASSERT_EQ(::chdir(kSource.c_str()), 0);
  const std::string log = GetParam();
  const char* argv[] = {"oomlens", "--format", "json", log.c_str()};
  std::ostringstream out, err;
  RunCli(4, argv, out, err, Console{});
  auto report = nlohmann::json::parse(out.str());
  for (const auto& incident : report["incidents"]) {
    std::string cause = incident["cause"];
    std::vector<std::string> lines = incident["evidence"];
    for (const auto& alternative : incident["alternatives"])
      for (const auto& line : alternative["evidence"]) lines.push_back(line);
    for (const auto& line : lines) {
      if (line.rfind("sources disagree: ", 0) == 0) continue;
      EXPECT_FALSE(Denies(line, cause)) << log << ": under a " << cause << " verdict: " << line;
    }
  }
}

std::string Name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param.substr(std::string("testdata/").size());
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Logs, Golden, ::testing::ValuesIn(AllLogs()), Name);

}  // namespace
}  // namespace oomlens
