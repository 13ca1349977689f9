// The JSON Schemas in docs/ describe what oomlens writes and reads: every
// bundled log's report and every built-in rule file validate against them.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/cli/cli_harness.h"
#include "tests/cli/json_schema.h"

namespace oomlens {
namespace {

const std::string kSource = OOMLENS_SOURCE_DIR;

JsonSchema Load(const std::string& path) {
  return JsonSchema(nlohmann::json::parse(ReadFile(kSource + "/" + path)));
}

TEST(Schema, EveryReportValidates) {
  JsonSchema schema = Load("docs/json-output.schema.json");
  std::vector<std::string> logs;
  FindFiles(kSource + "/testdata/logs", ".log", &logs);
  FindFiles(kSource + "/testdata/examples", ".log", &logs);
  ASSERT_GT(logs.size(), 50u);
  for (const auto& log : logs) {
    CliResult r = RunOomlens({"--format", "json", log});
    auto errors = schema.Validate(nlohmann::json::parse(r.out));
    EXPECT_TRUE(errors.empty()) << log << ": " << errors.front();
  }
}

TEST(Schema, EveryReportOfRecordsValidates) {
  JsonSchema schema = Load("docs/json-output.schema.json");
  std::vector<std::string> records;
  FindFiles(kSource + "/testdata/records", "", &records);
  ASSERT_GT(records.size(), 4u);
  std::vector<std::vector<std::string>> runs = {records};  // all at once: records joined and left over
  for (const auto& record : records) runs.push_back({record});
  for (auto& args : runs) {
    args.insert(args.begin(), {"--format", "json"});
    CliResult r = RunOomlens(args);
    auto doc = nlohmann::json::parse(r.out);
    auto errors = schema.Validate(doc);
    EXPECT_TRUE(errors.empty()) << args.back() << ": " << errors.front();
  }
}

TEST(Schema, TheValidatorRejectsWhatTheSchemaForbids) {
  JsonSchema schema = Load("docs/json-output.schema.json");
  auto doc = nlohmann::json::parse(
      RunOomlens({kSource + "/testdata/logs/tpu_dumps/dump_prose_owners.log", "--format", "json"}).out);
  ASSERT_TRUE(schema.Validate(doc).empty());
  auto bad = doc;
  bad["incidents"][0]["confidence"] = 1.5;
  bad["incidents"][0]["surprise"] = true;
  bad["incidents"][0].erase("cause");
  bad["schema_version"] = 2;
  auto errors = schema.Validate(bad);
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_NE(std::find(errors.begin(), errors.end(), "/incidents/0: has unknown key 'surprise'"),
            errors.end());
  EXPECT_NE(std::find(errors.begin(), errors.end(), "/incidents/0: lacks \"cause\""), errors.end());
}

TEST(Schema, EveryBuiltinRuleFileValidates) {
  JsonSchema schema = Load("docs/rules.schema.json");
  std::vector<std::string> files;
  FindFiles(kSource + "/rules", ".json", &files);
  ASSERT_GT(files.size(), 8u);
  for (const auto& file : files) {
    auto errors = schema.Validate(nlohmann::json::parse(ReadFile(file)));
    EXPECT_TRUE(errors.empty()) << file << ": " << errors.front();
  }
}

}  // namespace
}  // namespace oomlens
