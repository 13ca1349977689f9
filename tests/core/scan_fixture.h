// A test fixture that scans text with the built-in rules.
#ifndef OOMLENS_TESTS_CORE_SCAN_FIXTURE_H_
#define OOMLENS_TESTS_CORE_SCAN_FIXTURE_H_

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "oomlens/render.h"
#include "oomlens/rules.h"
#include "oomlens/scanner.h"

namespace oomlens {

class ScanFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<Problem> problems;
    ASSERT_TRUE(rules_.LoadBuiltin(&problems));
  }
  /// The report of text read as one input named t.log.
  Report Scan(const std::string& text, const std::string& chip = "") {
    ScanOptions options;
    options.chip = chip;
    Scanner scanner(rules_, options);
    scanner.ScanText(text, "t.log");
    return scanner.Finish();
  }
  /// The report as `oomlens merge` reads it back from its JSON.
  static Report ThroughJson(const Report& report) {
    std::ostringstream json;
    RenderJson(report, json);
    Report read;
    std::string error;
    EXPECT_TRUE(ParseJsonReport(json.str(), &read, &error)) << error;
    return read;
  }
  RuleSet rules_;
};

}  // namespace oomlens

#endif  // OOMLENS_TESTS_CORE_SCAN_FIXTURE_H_
