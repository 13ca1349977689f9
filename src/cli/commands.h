// The commands behind the command line (internal to src/cli).
#ifndef OOMLENS_CLI_COMMANDS_H_
#define OOMLENS_CLI_COMMANDS_H_

#include <ostream>
#include <string>
#include <vector>

#include "cli/console.h"
#include "cli/inputs.h"
#include "oomlens/render.h"
#include "oomlens/rules.h"

namespace oomlens {

struct Options {
  std::vector<std::string> files;
  Format format = Format::kText;
  ColorMode color = ColorMode::kAuto;
  std::vector<std::string> rule_dirs;
  bool no_builtin = false;
  std::string chip;
  bool quiet = false;
  InputOptions inputs;
  int jobs = 0;  // 0: one per core
  std::string fail_on = "oom";
  int max_incidents = 0;  // 0: all
  bool fleet = false;     // summarise by failure across files (docs/fleet.md)
  std::vector<std::string> check_dirs;
  std::vector<std::string> reports;  // for merge, and the two sides of diff
};

/// Loads the built-in rules (unless --no-builtin-rules) and the --rules folders,
/// printing every problem; false when the rules cannot be used.
bool LoadRulesAndSay(const Options& o, RuleSet* rules, std::ostream& err);

int RunScan(const Options& o, std::ostream& out, std::ostream& err, const Console& console);
int RunMerge(const Options& o, std::ostream& out, std::ostream& err, const Console& console);
/// Compares two runs (logs or JSON reports): exit 1 when an incident appeared.
int RunDiff(const Options& o, std::ostream& out, std::ostream& err);
int RunRulesList(const Options& o, std::ostream& out, std::ostream& err);
int RunRulesCheck(const Options& o, std::ostream& out, std::ostream& err);
int RunRulesFacts(std::ostream& out);
int RunExplain(const Options& o, const std::string& topic, std::ostream& out, std::ostream& err);
/// Prints the completion script of shell (bash, zsh, fish), lists filled from the rules.
int RunCompletions(const Options& o, const std::string& shell, std::ostream& out, std::ostream& err);
int RunRulesLiterals(const Options& o, std::ostream& out, std::ostream& err);

/// Returns "" when spec is a valid --fail-on value for these rules (oom, never, or
/// causes and kinds they know), else what is wrong.
std::string CheckFailOn(const std::string& spec, const RuleSet& rules);

}  // namespace oomlens

#endif  // OOMLENS_CLI_COMMANDS_H_
