#include "cli/commands.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <thread>

#include "cli/did_you_mean.h"
#include "cli/progress.h"
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

// After the report is written: its problems printed, the outcome as the exit code.
int Conclude(const Options& o, const Report& report, bool read_all, bool fails, std::ostream& out,
             std::ostream& err) {
  out.flush();
  if (!out) return kExitBrokenPipe;  // nobody reads the report any more: stop quietly
  PrintProblems(report.problems, o.quiet, err);
  if (!read_all || HasError(report.problems)) return kExitError;
  return fails ? kExitOomFound : kExitNoOom;
}

// Writes the report in a format to a stream, in colour or not.
using WriteReport = std::function<void(Format, std::ostream&, bool color)>;

}  // namespace

bool ReportFiles::Open(const Options& o, std::ostream& err) {
  for (const FileOutput& output : o.file_outputs) {
    auto stream = std::make_unique<std::ofstream>(output.path, std::ios::binary | std::ios::trunc);
    if (!*stream) {
      err << "oomlens: error: --format " << FormatName(output.format) << "=" << output.path
          << ": cannot write " << output.path << ": " << std::strerror(errno)
          << " (help: check that its directory exists and is writable)\n";
      return false;
    }
    files_.push_back({&output, std::move(stream)});
  }
  return true;
}

namespace {

// Writes each file's format; false (said why) when one could not be written whole.
bool WriteFiles(const std::vector<std::pair<const FileOutput*, std::unique_ptr<std::ofstream>>>& files,
                const WriteReport& write, std::ostream& err) {
  bool all = true;
  for (const auto& [output, stream] : files) {
    errno = 0;
    write(output->format, *stream, /*color=*/false);
    stream->flush();
    if (*stream) continue;
    err << "oomlens: error: " << output->path
        << ": writing the report failed: " << (errno ? std::strerror(errno) : "unknown error")
        << " (help: free space where it goes, or write elsewhere)\n";
    all = false;
  }
  return all;
}

// Renders (to stdout and the --format files), prints problems and turns the
// outcome into the exit code. With --fleet the report is summarised by failure
// across its files first; --max-incidents limits the incidents (failures) shown.
int RenderAndConclude(const Options& o, Report report, bool read_all, const ReportFiles& files,
                      std::ostream& out, std::ostream& err, const Console& console) {
  if (report.interrupted) {
    err << "oomlens: interrupted; no report written\n";
    return kExitInterrupted;
  }
  FailGate gate(o.fail_on);
  bool fails = gate.Fails(report);
  size_t limit = o.max_incidents > 0 ? static_cast<size_t>(o.max_incidents) : SIZE_MAX;
  FleetReport fleet;
  WriteReport write;
  if (o.fleet) {
    fleet = SummarizeFleet(report);
    if (fleet.failures.size() > limit) {
      err << "oomlens: showing " << limit << " of " << fleet.failures.size()
          << " failures (--max-incidents)\n";
      fleet.failures.resize(limit);
    }
    write = [&fleet](Format format, std::ostream& stream, bool) { RenderFleet(fleet, format, stream); };
  } else {
    size_t total = report.incidents.size();
    if (total > limit) {
      err << "oomlens: showing " << limit << " of " << total << " incidents (--max-incidents)\n";
      report.incidents.resize(limit);
    }
    write = [&report, &gate, total, &o](Format format, std::ostream& stream, bool color) {
      RenderOptions options;
      options.color = color;
      options.headroom = o.headroom;
      options.gate = gate;
      options.incidents_total = total;
      RenderReport(report, format, options, stream);
    };
  }
  if (o.to_stdout) write(o.format, out, UseColor(o, console));
  bool written = WriteFiles(files.files(), write, err);
  int code = Conclude(o, report, read_all, fails, out, err);
  return written ? code : kExitError;
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
    if (item == kEndedJob || known(causes, item) || known(kinds, item)) continue;
    std::vector<std::string> names = causes;
    names.insert(names.end(), kinds.begin(), kinds.end());
    return "'" + item + "' is neither a cause nor a kind of the loaded rules" + DidYouMean(item, names) +
           " (help: oom, ended, never, or comma-separated names from 'oomlens rules list'; causes: " +
           Join(causes, ", ") + ")";
  }
  return SplitList(spec).empty()
             ? "empty --fail-on (help: oom, ended, never, or comma-separated causes and kinds)"
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

namespace {

// A progress line for a scan a person waits on (newcomer review: 13-17 s of silence
// on 2 GB): stderr at a terminal, not -q, inputs of progress_from_bytes or more, or
// a pipe whose size nobody knows (not a paste typed at the terminal). Else null.
std::unique_ptr<ProgressLine> StartProgress(const Options& o, const std::vector<InputFile>& files,
                                            const Console& console, const std::atomic<uint64_t>* read,
                                            std::ostream& err) {
  if (!console.stderr_is_terminal || o.quiet) return nullptr;
  uint64_t total = 0;
  bool unknown = false;
  for (const auto& f : files) {
    struct stat st;
    bool ok = f.path == "-" ? !console.stdin_is_terminal && ::fstat(console.stdin_fd, &st) == 0
                            : ::stat(f.path.c_str(), &st) == 0;
    if (ok && S_ISREG(st.st_mode)) total += static_cast<uint64_t>(st.st_size);
    else if (ok && S_ISFIFO(st.st_mode)) unknown = true;
  }
  if (!unknown && total < console.progress_from_bytes) return nullptr;
  return std::make_unique<ProgressLine>(err, read, unknown ? 0 : total);
}

}  // namespace

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
  ReportFiles report_files;
  if (!report_files.Open(o, err)) return kExitError;
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
  std::atomic<uint64_t> bytes_read{0};
  options.bytes_read = &bytes_read;
  std::unique_ptr<ProgressLine> progress = StartProgress(o, files, console, &bytes_read, err);
  bool read_all = true;
  int jobs = o.jobs > 0 ? o.jobs : static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 16u));
  if (files.size() > 1) {  // each file is scanned alone and the reports merged, whatever -j (docs/cli.md)
    int threads = static_cast<int>(std::min<size_t>(static_cast<size_t>(jobs), files.size()));
    Report report = ScanEach(files, rules, options, threads, console.stdin_fd, &read_all);
    progress.reset();
    return RenderAndConclude(o, std::move(report), read_all, report_files, out, err, console);
  }
  options.read_ahead = jobs > 1;  // one file: a second thread reads it and finds the candidate lines
  Scanner scanner(rules, options);
  const InputFile& f = files.front();
  read_all =
      f.path == "-" ? scanner.ScanFd(console.stdin_fd, "<stdin>", f.host) : scanner.ScanFile(f.path, f.host);
  Report report = scanner.Finish();
  progress.reset();
  return RenderAndConclude(o, std::move(report), read_all, report_files, out, err, console);
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
  ReportFiles report_files;
  if (!report_files.Open(o, err)) return kExitError;
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
  return RenderAndConclude(o, std::move(merged), read_all, report_files, out, err, console);
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

int RunExplain(const Options& o, const std::string& topic, bool detail, std::ostream& out,
               std::ostream& err) {
  RuleSet rules;
  bool ok = LoadRulesAndSay(o, &rules, err);
  if (!RenderExplanation(rules, topic, detail, out)) {
    std::vector<std::string> topics = rules.Causes(), kinds = rules.IncidentKinds();
    topics.insert(topics.end(), kinds.begin(), kinds.end());
    for (const char* code : {"E0100", "E0101", "E1000", "E1001"}) topics.push_back(code);
    err << "oomlens: error: explain " << topic << ": no error code, kind or cause of that name"
        << DidYouMean(topic, topics)
        << " (help: try E0101, "
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
