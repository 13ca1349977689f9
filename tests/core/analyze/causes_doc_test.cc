// docs/causes.md is the decision procedure the cause rules implement: its table
// has one row per rule of rules/causes/, with the rule's kinds, cause, confidence
// and condition exactly. A rule changed without its row (or a row without its
// rule) fails here.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace oomlens {
namespace {

namespace fs = std::filesystem;
const fs::path kSource = OOMLENS_SOURCE_DIR;

struct Row {
  std::string kinds, cause, confidence, condition;
};

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string Trim(std::string s) {
  size_t b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::string Unquote(std::string s) {
  return s.size() >= 2 && s.front() == '`' ? s.substr(1, s.size() - 2) : s;
}

// Cells of a markdown table row ("| a | b |"); a '|' inside backticks is no separator.
std::vector<std::string> Cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  bool code = false;
  for (size_t i = 1; i < line.size(); ++i) {
    char c = line[i];
    if (c == '`') code = !code;
    if (c == '|' && !code) {
      cells.push_back(Trim(cell));
      cell.clear();
    } else {
      cell += c;
    }
  }
  return cells;
}

// Rows of the table under "## The rules", by rule id.
std::map<std::string, Row> DocumentedRules() {
  std::istringstream doc(Slurp(kSource / "docs" / "causes.md"));
  std::map<std::string, Row> rows;
  bool in_section = false;
  for (std::string line; std::getline(doc, line);) {
    if (line.rfind("## ", 0) == 0) in_section = line == "## The rules";
    if (!in_section || line.rfind("| `", 0) != 0) continue;
    std::vector<std::string> cells = Cells(line);
    if (cells.size() < 6) continue;
    rows[Unquote(cells[0])] = Row{cells[1], cells[2], cells[3], Unquote(cells[4])};
  }
  return rows;
}

std::string Joined(const nlohmann::json& kinds) {
  if (!kinds.is_array() || kinds.empty()) return "any";
  std::string out;
  for (const auto& k : kinds) out += (out.empty() ? "" : ", ") + k.get<std::string>();
  return out;
}

std::string Confidence(const nlohmann::json& rule) {
  if (rule.value("note", false)) return "note";
  std::ostringstream out;
  out << rule.value("confidence", 0.0);
  return out.str();
}

std::map<std::string, Row> RulesInFiles() {
  std::map<std::string, Row> rules;
  for (const auto& entry : fs::directory_iterator(kSource / "rules" / "causes")) {
    auto doc = nlohmann::json::parse(Slurp(entry.path()));
    for (const auto& rule : doc["causes"]) {
      std::string condition = rule.value("fallback", false) ? "fallback" : rule.value("when", "true");
      std::string kinds = Joined(rule.value("kinds", nlohmann::json()));
      rules[rule["id"]] = Row{kinds, rule.value("cause", "-"), Confidence(rule), condition};
    }
  }
  return rules;
}

TEST(CausesDoc, EveryRuleHasItsRowAndEveryRowItsRule) {
  auto documented = DocumentedRules();
  auto rules = RulesInFiles();
  ASSERT_GT(rules.size(), 20u);
  for (const auto& [id, rule] : rules) {
    auto row = documented.find(id);
    if (row == documented.end()) {
      ADD_FAILURE() << "rule '" << id << "' has no row in docs/causes.md";
      continue;
    }
    EXPECT_EQ(row->second.kinds, rule.kinds) << id << ": kinds";
    EXPECT_EQ(row->second.cause, rule.cause) << id << ": cause";
    EXPECT_EQ(row->second.confidence, rule.confidence) << id << ": confidence";
    EXPECT_EQ(row->second.condition, rule.condition) << id << ": condition";
  }
  for (const auto& [id, row] : documented)
    EXPECT_TRUE(rules.count(id)) << "docs/causes.md documents '" << id << "', which no rule file has";
}

// A rule's description is what it means for any incident: SARIF's fullDescription,
// the first line `explain` gives of it (newcomer review, issue 32 items 9 and 11).
TEST(CausesDoc, EveryRuleSaysWhatItMeansInASentence) {
  for (const auto& entry : fs::directory_iterator(kSource / "rules" / "causes")) {
    auto doc = nlohmann::json::parse(Slurp(entry.path()));
    for (const auto& rule : doc["causes"]) {
      std::string description = rule.value("description", "");
      std::string where = entry.path().filename().string() + ": " + rule["id"].get<std::string>();
      EXPECT_GE(description.size(), 40u) << where << ": no description, or too short to say anything";
      EXPECT_EQ(description.find('{'), std::string::npos) << where << ": a description has no figures";
      EXPECT_EQ(description.back(), '.') << where << ": a description is a sentence";
    }
  }
}

// Every cause a built-in rule can decide has its two sentences in
// rules/causes/meanings.json (what `oomlens explain CAUSE` leads with), and no
// sentence is for a cause no rule decides.
TEST(CausesDoc, EveryCauseHasAMeaning) {
  auto meanings = nlohmann::json::parse(Slurp(kSource / "rules" / "causes" / "meanings.json"))["meanings"];
  std::set<std::string> causes;
  for (const auto& [id, rule] : RulesInFiles()) {
    if (rule.cause != "-") causes.insert(rule.cause);  // "-": a note that only adds advice
  }
  for (const auto& cause : causes) {
    ASSERT_TRUE(meanings.contains(cause)) << "rules/causes/meanings.json: no meaning for '" << cause << "'";
    std::string meaning = meanings[cause];
    EXPECT_GE(std::count(meaning.begin(), meaning.end(), '.'), 2) << cause << ": two sentences";
  }
  for (const auto& [cause, meaning] : meanings.items())
    EXPECT_TRUE(causes.count(cause)) << "meanings.json: '" << cause << "' is no rule's cause";
}

}  // namespace
}  // namespace oomlens
