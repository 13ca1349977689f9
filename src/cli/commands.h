// The commands behind the command line (internal to src/cli).
#ifndef OOMLENS_CLI_COMMANDS_H_
#define OOMLENS_CLI_COMMANDS_H_

#include <ostream>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/inputs.h"

namespace oomlens {

struct Options {
  std::vector<std::string> files;
  std::string format = "text";
  std::string color = "auto";
  std::vector<std::string> rule_dirs;
  bool no_builtin = false;
  std::string chip;
  bool quiet = false;
  InputOptions inputs;
  int jobs = 0;  // 0: one per core
  std::string fail_on = "oom";
  int max_incidents = 0;  // 0: all
  std::vector<std::string> check_dirs;
  std::vector<std::string> reports;  // for merge, and the two sides of diff
};

int RunScan(const Options& o, std::ostream& out, std::ostream& err, const Console& console);
int RunMerge(const Options& o, std::ostream& out, std::ostream& err, const Console& console);
/// Compares two runs (logs or JSON reports): exit 1 when an incident appeared.
int RunDiff(const Options& o, std::ostream& out, std::ostream& err);
int RunRulesList(const Options& o, std::ostream& out, std::ostream& err);
int RunRulesCheck(const Options& o, std::ostream& out, std::ostream& err);
int RunRulesFacts(std::ostream& out);
int RunExplain(const Options& o, const std::string& topic, std::ostream& out, std::ostream& err);
int RunRulesLiterals(const Options& o, std::ostream& out, std::ostream& err);

/// Returns "" when spec is a valid --fail-on value, else what is wrong.
std::string CheckFailOn(const std::string& spec);

}  // namespace oomlens

#endif  // OOMLENS_CLI_COMMANDS_H_
