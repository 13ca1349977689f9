#include "cli/cli.h"

#include <map>
#include <vector>

#include <CLI/CLI.hpp>

#include "oomlens/render.h"
#include "oomlens/rules.h"
#include "oomlens/scanner.h"

namespace oomlens {
namespace {

struct Options {
  std::vector<std::string> files;
  std::string format = "text";
  std::string color = "auto";
  std::vector<std::string> rule_dirs;
  bool no_builtin = false;
  std::string chip;
  bool quiet = false;
  std::vector<std::string> check_dirs;
};

void PrintProblems(const std::vector<Problem>& problems, bool quiet, std::ostream& err) {
  for (const auto& p : problems) {
    bool error = p.severity == Problem::Severity::kError;
    if (quiet && !error) continue;
    err << "oomlens: " << (error ? "error: " : "warning: ") << FormatProblem(p) << "\n";
  }
}

bool HasError(const std::vector<Problem>& problems) {
  for (const auto& p : problems)
    if (p.severity == Problem::Severity::kError) return true;
  return false;
}

// Loads the built-in rules (unless disabled) and then each --rules folder.
bool LoadRules(const Options& o, const std::vector<std::string>& extra, RuleSet* rules,
               std::vector<Problem>* problems) {
  bool ok = o.no_builtin || rules->LoadBuiltin(problems);
  for (const auto& dir : o.rule_dirs) ok = rules->LoadDirectory(dir, problems) && ok;
  for (const auto& dir : extra) ok = rules->LoadDirectory(dir, problems) && ok;
  return ok;
}

bool UseColor(const Options& o, const Console& console) {
  if (o.color == "always") return true;
  if (o.color == "never") return false;
  const char* no_color = console.getenv("NO_COLOR");
  const char* term = console.getenv("TERM");
  return console.stdout_is_terminal && !(no_color && *no_color) && !(term && std::string(term) == "dumb");
}

int RunScan(const Options& o, std::ostream& out, std::ostream& err, const Console& console) {
  RuleSet rules;
  std::vector<Problem> problems;
  if (!LoadRules(o, {}, &rules, &problems)) {
    PrintProblems(problems, false, err);
    err << "oomlens: error: rules have errors; fix them or run 'oomlens rules check' for details\n";
    return kExitError;
  }
  std::vector<std::string> files = o.files;
  if (files.empty()) {
    if (console.stdin_is_terminal) {
      err << "oomlens: error: no input: stdin is a terminal (help: pass log files, e.g. 'oomlens "
             "worker-*.log', or pipe a log in, e.g. 'kubectl logs job/x | oomlens')\n";
      return kExitError;
    }
    files.push_back("-");
  }
  ScanOptions scan_options;
  scan_options.chip = o.chip;
  scan_options.cancel = console.interrupted;
  Scanner scanner(rules, scan_options);
  bool read_all = true;
  for (const auto& f : files) {
    read_all = (f == "-" ? scanner.ScanFd(console.stdin_fd, "<stdin>") : scanner.ScanFile(f)) && read_all;
  }
  Report report = scanner.Finish();
  if (report.interrupted) {
    err << "oomlens: interrupted; no report written\n";
    return kExitInterrupted;
  }
  if (o.format == "json") {
    RenderJson(report, out);
  } else {
    TextOptions text;
    text.color = UseColor(o, console);
    RenderText(report, text, out);
  }
  out.flush();
  if (!out) return kExitBrokenPipe;  // nobody reads the report any more: stop quietly
  PrintProblems(report.problems, o.quiet, err);
  if (!read_all || HasError(report.problems)) return kExitError;
  return report.incidents.empty() ? kExitNoOom : kExitOomFound;
}

int RunRulesList(const Options& o, std::ostream& out, std::ostream& err) {
  RuleSet rules;
  std::vector<Problem> problems;
  bool ok = LoadRules(o, {}, &rules, &problems);
  PrintProblems(problems, false, err);
  for (const auto& e : rules.List()) {
    out << e.type << "\t" << e.id << "\t" << e.what << "\t" << e.file << "\n";
  }
  return ok ? kExitNoOom : kExitError;
}

int RunRulesCheck(const Options& o, std::ostream& out, std::ostream& err) {
  RuleSet rules;
  std::vector<Problem> problems;
  bool ok = LoadRules(o, o.check_dirs, &rules, &problems);
  ok = rules.CheckSamples(&problems) && ok;
  PrintProblems(problems, false, err);
  size_t signatures = 0, causes = 0;
  for (const auto& e : rules.List()) (e.type == "signature" ? signatures : causes)++;
  if (!ok) {
    size_t errors = 0;
    for (const auto& p : problems) errors += p.severity == Problem::Severity::kError;
    err << "oomlens: error: " << errors << " problem" << (errors == 1 ? "" : "s") << " in the rules\n";
    return kExitError;
  }
  out << "rules ok: " << signatures << " signatures and " << causes
      << " cause rules, every sample passes\n";
  return kExitNoOom;
}

int RunRulesFacts(std::ostream& out) {
  static const char* const kTypes[] = {"size", "count", "ratio", "text", "identity"};
  for (const auto& f : FactRegistry()) {
    out << f.name << "\t" << kTypes[static_cast<int>(f.type)] << "\t"
        << (f.derived ? "derived" : "read") << "\t" << f.description << "\n";
  }
  return kExitNoOom;
}

}  // namespace

int RunCli(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
           const Console& console) {
  Options o;
  CLI::App app{"oomlens: reads the logs of a crashed ML job and says why it ran out of "
               "accelerator memory and what to change.",
               "oomlens"};
  app.set_version_flag("--version", std::string("oomlens ") + Version());
  app.add_option("files", o.files, "log files to read ('-' or none: stdin)");
  app.add_option("-f,--format", o.format, "output format")
      ->check(CLI::IsMember({"text", "json"}, CLI::ignore_case))
      ->default_str("text");
  app.add_option("--color", o.color, "colour the text output")
      ->check(CLI::IsMember({"auto", "always", "never"}, CLI::ignore_case))
      ->default_str("auto");
  app.add_option("--rules", o.rule_dirs, "extra rule folder (repeatable); entries override built-ins by id")
      ->allow_extra_args(false);
  app.add_flag("--no-builtin-rules", o.no_builtin, "use only the --rules folders");
  app.add_option("--chip", o.chip, "accelerator (v4, v5e, v5p, v6e, a100-80 ...) for its memory size");
  app.add_flag("-q,--quiet", o.quiet, "print no warnings, only errors");
  app.require_subcommand(0, 1);
  CLI::App* rules = app.add_subcommand("rules", "list or check the rules");
  rules->require_subcommand(1);
  CLI::App* list = rules->add_subcommand("list", "list signatures and cause rules");
  CLI::App* check = rules->add_subcommand("check", "validate rule files and run every sample");
  check->add_option("dirs", o.check_dirs, "rule folders to check with the built-in rules");
  CLI::App* facts = rules->add_subcommand("facts", "list the facts signatures and rules may use");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return kExitNoOom;
  } catch (const CLI::CallForAllHelp&) {
    out << app.help("", CLI::AppFormatMode::All);
    return kExitNoOom;
  } catch (const CLI::CallForVersion&) {
    out << "oomlens " << Version() << "\n";
    return kExitNoOom;
  } catch (const CLI::ParseError& e) {
    err << "oomlens: error: " << e.what() << " (help: run 'oomlens --help')\n";
    return kExitError;
  }
  if (!o.chip.empty() && !ChipCapacity(o.chip)) {
    err << "oomlens: error: --chip " << o.chip << ": unknown chip (help: one of " << KnownChips() << ")\n";
    return kExitError;
  }
  if (list->parsed()) return RunRulesList(o, out, err);
  if (check->parsed()) return RunRulesCheck(o, out, err);
  if (facts->parsed()) return RunRulesFacts(out);
  return RunScan(o, out, err, console);
}

}  // namespace oomlens
