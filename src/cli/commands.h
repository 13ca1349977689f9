// The commands behind the command line (internal to src/cli).
#ifndef OOMLENS_CLI_COMMANDS_H_
#define OOMLENS_CLI_COMMANDS_H_

#include <fstream>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "cli/console.h"
#include "cli/inputs.h"
#include "oomlens/render.h"
#include "oomlens/rules.h"

namespace oomlens {

/// A report written to a file: `--format FORMAT=FILE`.
struct FileOutput {
  Format format;
  std::string path;
};

struct Options {
  std::vector<std::string> files;
  Format format = Format::kText;  // what stdout gets
  bool to_stdout = true;          // false when every --format names a file
  std::vector<FileOutput> file_outputs;
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
  bool headroom = false;  // text: the budget each input printed, and its headroom
  std::vector<std::string> check_dirs;
  std::vector<std::string> reports;  // for merge, and the two sides of diff
};

/// The files --format FORMAT=FILE writes, opened (and emptied) before a scan, so
/// that one that cannot be written fails at once, not after a 2 GB scan.
class ReportFiles {
 public:
  /// False (said why on err) when one cannot be opened for writing.
  bool Open(const Options& o, std::ostream& err);
  const std::vector<std::pair<const FileOutput*, std::unique_ptr<std::ofstream>>>& files() const {
    return files_;
  }

 private:
  std::vector<std::pair<const FileOutput*, std::unique_ptr<std::ofstream>>> files_;
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
int RunExplain(const Options& o, const std::string& topic, bool detail, std::ostream& out, std::ostream& err);
/// Prints the completion script of shell (bash, zsh, fish), lists filled from the rules.
int RunCompletions(const Options& o, const std::string& shell, std::ostream& out, std::ostream& err);
int RunRulesLiterals(const Options& o, std::ostream& out, std::ostream& err);

/// Returns "" when spec is a valid --fail-on value for these rules (oom, never, or
/// causes and kinds they know), else what is wrong.
std::string CheckFailOn(const std::string& spec, const RuleSet& rules);

}  // namespace oomlens

#endif  // OOMLENS_CLI_COMMANDS_H_
