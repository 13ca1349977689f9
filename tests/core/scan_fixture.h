// A test fixture that scans text with the built-in rules.
#ifndef OOMLENS_TESTS_CORE_SCAN_FIXTURE_H_
#define OOMLENS_TESTS_CORE_SCAN_FIXTURE_H_

#include <gtest/gtest.h>

#include <string>
#include <vector>

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
  RuleSet rules_;
};

}  // namespace oomlens

#endif  // OOMLENS_TESTS_CORE_SCAN_FIXTURE_H_
