#include "cli/commands.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "oomlens/diff.h"
#include "oomlens/fleet.h"
#include "oomlens/gate.h"
#include "oomlens/merge.h"
#include "oomlens/render.h"
#include "oomlens/rules.h"
#include "oomlens/scanner.h"

namespace oomlens {
namespace {

void PrintProblems(const std::vector<Problem>& problems, bool quiet, std::ostream& err) {
  for (const auto& p : problems) {
    bool error = p.severity == Problem::Severity::kError;
    if (quiet && !error) continue;
    err << "oomlens: " << (error ? "error: " : "warning: ") << Printable(FormatProblem(p)) << "\n";
  }
}

bool HasError(const std::vector<Problem>& problems) {
  for (const auto& p : problems)
    if (p.severity == Problem::Severity::kError) return true;
  return false;
}

std::string Join(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
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
  if (o.color == ColorMode::kAlways) return true;
  if (o.color == ColorMode::kNever) return false;
  const char* no_color = console.getenv("NO_COLOR");
  const char* term = console.getenv("TERM");
  return console.stdout_is_terminal && !(no_color && *no_color) && !(term && std::string(term) == "dumb");
}

void Render(const Options& o, const Report& report, std::ostream& out, const Console& console) {
  RenderOptions options;
  options.color = UseColor(o, console);
  options.gate = FailGate(o.fail_on);
  RenderReport(report, o.format, options, out);
}

// After the report is written: its problems printed, the outcome as the exit code.
int Conclude(const Options& o, const Report& report, bool read_all, bool fails, std::ostream& out,
             std::ostream& err) {
  out.flush();
  if (!out) return kExitBrokenPipe;  // nobody reads the report any more: stop quietly
  PrintProblems(report.problems, o.quiet, err);
  if (!read_all || HasError(report.problems)) return kExitError;
  return fails ? kExitOomFound : kExitNoOom;
}

// --fleet: the report summarised by failure across its files; --max-incidents
// limits the failures shown.
int FinishFleet(const Options& o, const Report& report, bool read_all, bool fails, std::ostream& out,
                std::ostream& err) {
  FleetReport fleet = SummarizeFleet(report);
  size_t total = fleet.failures.size();
  if (o.max_incidents > 0 && total > static_cast<size_t>(o.max_incidents)) {
    fleet.failures.resize(static_cast<size_t>(o.max_incidents));
    err << "oomlens: showing " << o.max_incidents << " of " << total << " failures (--max-incidents)\n";
  }
  RenderFleet(fleet, o.format, out);
  return Conclude(o, report, read_all, fails, out, err);
}

// Renders, prints problems and turns the outcome into the exit code.
int RenderAndConclude(const Options& o, Report report, bool read_all, std::ostream& out, std::ostream& err,
                      const Console& console) {
  if (report.interrupted) {
    err << "oomlens: interrupted; no report written\n";
    return kExitInterrupted;
  }
  bool fails = FailGate(o.fail_on).Fails(report);
  if (o.fleet) return FinishFleet(o, report, read_all, fails, out, err);
  size_t total = report.incidents.size();
  if (o.max_incidents > 0 && total > static_cast<size_t>(o.max_incidents)) {
    report.incidents.resize(static_cast<size_t>(o.max_incidents));
    err << "oomlens: showing " << o.max_incidents << " of " << total << " incidents (--max-incidents)\n";
  }
  Render(o, report, out, console);
  return Conclude(o, report, read_all, fails, out, err);
}

}  // namespace

bool LoadRulesAndSay(const Options& o, RuleSet* rules, std::ostream& err) {
  std::vector<Problem> problems;
  bool ok = LoadRules(o, {}, rules, &problems);
  PrintProblems(problems, false, err);
  return ok;
}

std::string CheckFailOn(const std::string& spec, const RuleSet& rules) {
  if (spec == "oom" || spec == "never") return "";
  std::vector<std::string> causes = rules.Causes(), kinds = rules.IncidentKinds();
  auto known = [](const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  for (const auto& item : SplitList(spec)) {
    if (known(causes, item) || known(kinds, item)) continue;
    return "'" + item +
           "' is neither a cause nor a kind of the loaded rules (help: oom, never, or comma-separated "
           "names from 'oomlens rules list'; causes: " +
           Join(causes, ", ") + ")";
  }
  return SplitList(spec).empty() ? "empty --fail-on (help: oom, never, or comma-separated causes and kinds)"
                                 : "";
}

// Loads the rules for a command that writes a report; false (said why) when they,
// or the --fail-on that names their causes, cannot be used.
bool LoadRulesForReport(const Options& o, RuleSet* rules, std::ostream& err) {
  std::vector<Problem> problems;
  if (!LoadRules(o, {}, rules, &problems)) {
    PrintProblems(problems, false, err);
    err << "oomlens: error: rules have errors; fix them or run 'oomlens rules check' for details\n";
    return false;
  }
  PrintProblems(problems, o.quiet, err);
  if (std::string problem = CheckFailOn(o.fail_on, *rules); !problem.empty()) {
    err << "oomlens: error: --fail-on: " << problem << "\n";
    return false;
  }
  return true;
}

int RunScan(const Options& o, std::ostream& out, std::ostream& err, const Console& console) {
  RuleSet rules;
  if (!LoadRulesForReport(o, &rules, err)) return kExitError;
  if (rules.IncidentKinds().empty()) {
    err << "oomlens: error: no signature is loaded, so no OOM could be found (help: drop --no-builtin-rules, "
           "or "
           "give --rules a folder with signatures)\n";
    return kExitError;
  }
  std::vector<std::string> args = o.files;
  if (args.empty()) {
    if (console.stdin_is_terminal) {  // a person at a terminal: take a paste
      err << "Paste the log, then press Ctrl-D (Ctrl-Z then Enter on Windows).\n";
    }
    args.push_back("-");
  }
  std::vector<InputFile> files;
  std::string error;
  InputOptions inputs = o.inputs;
  inputs.cancel = console.interrupted;
  if (!ExpandInputs(args, inputs, &files, &error)) {
    err << "oomlens: error: " << error << "\n";
    return kExitError;
  }
  ScanOptions options;
  options.chip = o.chip;
  options.cancel = console.interrupted;
  bool read_all = true;
  int jobs = o.jobs > 0 ? o.jobs : static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 16u));
  if (files.size() > 1) {  // each file is scanned alone and the reports merged, whatever -j (docs/cli.md)
    int threads = static_cast<int>(std::min<size_t>(static_cast<size_t>(jobs), files.size()));
    Report report = ScanEach(files, rules, options, threads, console.stdin_fd, &read_all);
    return RenderAndConclude(o, std::move(report), read_all, out, err, console);
  }
  options.read_ahead = jobs > 1;  // one file: a second thread reads it and finds the candidate lines
  Scanner scanner(rules, options);
  const InputFile& f = files.front();
  read_all =
      f.path == "-" ? scanner.ScanFd(console.stdin_fd, "<stdin>", f.host) : scanner.ScanFile(f.path, f.host);
  return RenderAndConclude(o, scanner.Finish(), read_all, out, err, console);
}

namespace {

// Opens path for reading ("-": stdin), or -1 with *error.
int OpenInput(const std::string& path, std::string* error) {
  if (path == "-") return STDIN_FILENO;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) *error = std::string(std::strerror(errno)) + (errno == ENOENT ? " (help: check the path)" : "");
  return fd;
}

}  // namespace

int RunMerge(const Options& o, std::ostream& out, std::ostream& err, const Console& console) {
  RuleSet rules;
  if (!LoadRulesForReport(o, &rules, err)) return kExitError;
  ReportMerger merger(rules, o.chip, o.reports.size() > 1);  // one report held at a time
  for (const auto& path : o.reports) {
    Report part;
    std::string error;
    int fd = OpenInput(path, &error);
    bool ok = fd >= 0 && ReadJsonReport(fd, &part, &error);
    if (fd > STDIN_FILENO) ::close(fd);
    if (!ok) {
      err << "oomlens: error: " << path << ": " << error
          << " (help: merge takes reports written with --format json)\n";
      return kExitError;
    }
    merger.Add(std::move(part));
  }
  Report merged = merger.Finish();
  bool read_all = true;
  for (const auto& in : merged.inputs) read_all = read_all && in.ok;
  return RenderAndConclude(o, std::move(merged), read_all, out, err, console);
}

namespace {

// One side of a diff: a JSON report as written, or a log scanned now; read once.
bool ReadSide(const std::string& path, const RuleSet& rules, const Options& o, Report* report,
              std::ostream& err) {
  std::string error;
  int fd = OpenInput(path, &error);
  if (fd < 0) {
    err << "oomlens: error: " << path << ": " << error << "\n";
    return false;
  }
  ScanOptions options;
  options.chip = o.chip;
  RunKind kind = RunKind::kLog;
  bool ok = ReadRun(fd, path == "-" ? "<stdin>" : path, rules, options, report, &kind, &error);
  if (fd != STDIN_FILENO) ::close(fd);
  if (kind == RunKind::kReport) {
    if (!ok) {
      err << "oomlens: error: " << path << ": " << error
          << " (help: give a log or a report written with --format json)\n";
    }
    return ok;
  }
  PrintProblems(report->problems, o.quiet, err);
  return ok;
}

}  // namespace

int RunDiff(const Options& o, std::ostream& out, std::ostream& err) {
  RuleSet rules;
  if (!LoadRulesAndSay(o, &rules, err)) return kExitError;
  if (o.format != Format::kText && o.format != Format::kJson) {
    err << "oomlens: error: diff writes text or json, not " << FormatName(o.format)
        << " (help: --format json)\n";
    return kExitError;
  }
  Report before, after;
  if (!ReadSide(o.reports[0], rules, o, &before, err) || !ReadSide(o.reports[1], rules, o, &after, err)) {
    return kExitError;
  }
  ReportDiff diff = DiffReports(before, after, o.reports[0], o.reports[1]);
  if (o.format == Format::kJson) RenderDiffJson(diff, out);
  else RenderDiffText(diff, out);
  out.flush();
  if (!out) return kExitBrokenPipe;
  bool appeared = std::any_of(diff.incidents.begin(), diff.incidents.end(), [](const IncidentDiff& d) {
    return d.status == IncidentDiff::Status::kAppeared;
  });
  return appeared ? kExitOomFound : kExitNoOom;
}

int RunRulesList(const Options& o, std::ostream& out, std::ostream& err) {
  RuleSet rules;
  bool ok = LoadRulesAndSay(o, &rules, err);
  for (const auto& e : rules.List()) {
    out << RuleTypeName(e.type) << "\t" << e.id << "\t" << e.what << "\t" << e.file << "\n";
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
  for (const auto& e : rules.List()) (e.type == RuleEntry::Type::kSignature ? signatures : causes)++;
  if (!ok) {
    size_t errors = 0;
    for (const auto& p : problems) errors += p.severity == Problem::Severity::kError;
    err << "oomlens: error: " << errors << " problem" << (errors == 1 ? "" : "s") << " in the rules\n";
    return kExitError;
  }
  out << "rules ok: " << signatures << " signatures and " << causes << " cause rules, every sample passes\n";
  return kExitNoOom;
}

int RunRulesFacts(std::ostream& out) {
  static const char* const kTypes[] = {"size", "count", "ratio", "text", "identity"};
  for (const auto& f : FactRegistry()) {
    out << f.name << "\t" << kTypes[static_cast<int>(f.type)] << "\t" << (f.derived ? "derived" : "read")
        << "\t" << f.description << "\n";
  }
  for (const auto& f : AllocationFields()) {
    out << "allocation." << f.name << "\t" << kTypes[static_cast<int>(f.type)] << "\tread\t" << f.description
        << "\n";
  }
  return kExitNoOom;
}

int RunExplain(const Options& o, const std::string& topic, std::ostream& out, std::ostream& err) {
  RuleSet rules;
  bool ok = LoadRulesAndSay(o, &rules, err);
  if (!RenderExplanation(rules, topic, out)) {
    err << "oomlens: error: explain " << topic
        << ": no error code, kind or cause of that name (help: try E0101, "
           "E0100, E1000, E1001, pytorch_cuda, bfc_allocator, fragmentation, or see 'oomlens rules list')\n";
    return kExitError;
  }
  return ok ? kExitNoOom : kExitError;
}

int RunRulesLiterals(const Options& o, std::ostream& out, std::ostream& err) {
  RuleSet rules;
  bool ok = LoadRulesAndSay(o, &rules, err);
  for (const auto& literal : rules.Literals()) out << literal << "\n";
  return ok ? kExitNoOom : kExitError;
}

}  // namespace oomlens
