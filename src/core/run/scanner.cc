#include "oomlens/scanner.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/analyze/allocation_summary.h"
#include "core/analyze/budget.h"
#include "core/analyze/finish.h"
#include "core/analyze/grouping.h"
#include "core/analyze/history.h"
#include "core/analyze/series.h"
#include "core/input/decompress.h"
#include "core/input/line_reader.h"
#include "core/recognize/read_ahead.h"
#include "core/recognize/recognizer.h"
#include "core/rules/rule_data.h"
#include "core/run/record_input.h"
#include "core/run/report_input.h"
#include "core/run/scan_testing.h"
#include "oomlens/merge.h"
#include "oomlens/size.h"

namespace oomlens {
namespace {

constexpr size_t kMaxProblems = 200;

// A FIFO opened without blocking: waits, in slices an interrupt can end, until a
// writer has written or gone, then makes reads block again. False when interrupted.
bool WaitForWriter(int fd, const std::atomic<bool>* cancel) {
  for (;;) {
    pollfd ready{fd, POLLIN, 0};
    if (::poll(&ready, 1, 100) > 0) break;  // data, or a writer came and went (POLLHUP)
    if (cancel && cancel->load()) return false;
  }
  int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return true;
}

}  // namespace

struct Scanner::State {
  const RuleSet& rules;
  ScanOptions options;
  Report report;
  IncidentGrouper grouper;
  SeriesCollector series;
  HistoryCollector history;
  BudgetCollector budget;
  Recognizer recognizer;
  size_t dropped_problems = 0;
  size_t memory_records_dropped = 0;
  ReadFigures read_figures = ReadFigures::kWhenBehind;  // ScannerTesting may force a side
  bool probe_files = true;                              // or read ahead whatever a file holds

  State(const RuleSet& r, ScanOptions o)
      : rules(r),
        options(std::move(o)),
        recognizer(
            RuleDataOf(r), [this](Event&& e) { Route(std::move(e)); }, &report.problems) {
    recognizer.set_figure_sink([this](const Figure& figure) { Take(figure); });
    // A dump's entries summarised as its pieces are read: the largest a report keeps, no more.
    recognizer.set_listing_sinks(
        [] { return std::make_unique<ListingSummarizer>(kMaxAllocationsPerReport); });
  }

  void Route(Event&& event) {
    if (!event.joins.empty()) return KeepMemoryRecord(std::move(event));
    history.Mark(&event);
    series.AddOom(event);
    grouper.Add(std::move(event));
  }

  // A record of memory held (a profile, a report a log printed) waits, apart, for
  // the failure it was taken for (JoinMemoryRecords); a scan keeps kMaxIncidents.
  void KeepMemoryRecord(Event&& event) {
    if (report.memory_records.size() >= kMaxIncidents) {
      if (memory_records_dropped++ == 0)
        AddProblem(
            Problem::Severity::kWarning, LocationText(event.where),
            "more than " + std::to_string(kMaxIncidents) + " records of memory held; the rest are not kept",
            "scan the records with the logs they belong to in smaller sets");
      return;
    }
    report.memory_records.push_back(IncidentOf(std::move(event)));
  }

  void Take(const Figure& figure) {
    if (figure.series) {
      series.Add(figure);
      return;
    }
    if (figure.activity == "budget") budget.Add(figure);
    if (figure.activity != "budget" || !figure.phase.empty()) history.Add(figure);  // a phase's sign too
  }

  // At most kMaxProblems are kept; the rest are counted and said in one line at the end.
  void CapProblems() {
    if (report.problems.size() <= kMaxProblems) return;
    dropped_problems += report.problems.size() - kMaxProblems;
    report.problems.resize(kMaxProblems);
  }

  void AddProblem(Problem::Severity severity, std::string where, std::string message, std::string help) {
    report.problems.push_back(
        oomlens::Problem{severity, std::move(where), std::move(message), std::move(help)});
  }

  // ahead, when given, reads the source and has found the candidate lines.
  bool Scan(ByteSource* source, const std::string& name, const std::string& host,
            ReadAheadSource* ahead = nullptr) {
    int index = static_cast<int>(report.inputs.size());
    recognizer.BeginInput(name, index, host);
    LineReader reader(source, LineReader::kDefaultChunk, options.max_line_bytes);
    Line line;
    LineReader::Finder find = [this, ahead](std::string_view text, uint64_t offset, NewlineTally* counted) {
      return ahead ? ahead->Find(text, offset) : recognizer.FindCandidate(text, counted);
    };
    for (;;) {
      if (recognizer.idle()) reader.SkipUntil(find);            // the fast path
      else if (recognizer.restoring()) reader.MarkClear(find);  // every line read: searched many at once
      if (!reader.Next(&line)) break;
      if (options.cancel && options.cancel->load(std::memory_order_relaxed)) {
        report.interrupted = true;
        break;
      }
      if (line.truncated) {
        AddProblem(Problem::Severity::kWarning, name + ":" + std::to_string(line.number),
                   "line longer than " + FormatSize(static_cast<int64_t>(options.max_line_bytes)) +
                       "; only its start was read",
                   "");
      }
      recognizer.Feed(line, ahead ? ahead->PreparedAt(line.offset) : nullptr);
      CapProblems();
    }
    if (options.cancel && options.cancel->load(std::memory_order_relaxed))
      report.interrupted = true;  // also at the end
    recognizer.Finish();
    InputSummary summary{name, reader.lines_read(), reader.bytes_read(),
                         reader.error().empty() && !report.interrupted, ""};
    report.inputs.push_back(summary);
    if (report.interrupted) return false;
    if (!reader.error().empty()) {
      AddProblem(Problem::Severity::kError, name,
                 "read failed after " + std::to_string(reader.bytes_read()) + " bytes: " + reader.error(),
                 "the part read before the error was scanned");
      return false;
    }
    return true;
  }
  // An allocator's record: its failures become events like a log's; its memory
  // records wait for the failure they were taken for (JoinMemoryRecords).
  bool ScanRecord(RecordFormat format, ByteSource* source, std::string head, const std::string& name,
                  const std::string& host) {
    InputSummary summary{name, 0, 0, false, RecordName(format)};  // no bytes counted unless it is read
    std::vector<Event> events;
    RecordRefusal refusal;
    uint64_t bytes = 0;
    if (!ReadRecord(format, source, std::move(head), name, static_cast<int>(report.inputs.size()), &events,
                    &bytes, &refusal))
      return Refuse(summary, refusal.where, refusal.message, refusal.help);
    for (Event& event : events) {
      event.host = host;
      Route(std::move(event));
    }
    summary.ok = true;
    summary.bytes = bytes;
    report.inputs.push_back(summary);
    return true;
  }

  bool Refuse(InputSummary summary, std::string where, std::string message, std::string help) {
    AddProblem(Problem::Severity::kError, std::move(where), std::move(message), std::move(help));
    report.inputs.push_back(summary);
    return false;
  }
};

namespace {

// The record format the first bytes of source name (they are read into *head), or
// kNone: a log, to be scanned from *head on. A read error recurs, and is said, later.
RecordFormat LookForRecord(ByteSource* source, std::string* head) {
  std::string error;
  return ReadUpTo(source, kRecordHeadBytes, head, &error) ? RecordFormatOf(*head) : RecordFormat::kNone;
}

// Pipes are read ahead; a file when ReadAheadPays on its first MiB (read with
// pread: the offset stays); a terminal is a person pasting, with nothing to gain.
bool ReadAheadPaysFor(int fd, off_t at, std::string_view decoded_head, const Prefilter& prefilter,
                      bool probe_files) {
  struct stat st;
  if (::fstat(fd, &st) != 0 || ::isatty(fd)) return false;
  if (S_ISFIFO(st.st_mode)) return true;
  if (!S_ISREG(st.st_mode)) return false;
  if (!probe_files) return true;
  std::string probe(
      std::min<uint64_t>(kReadAheadProbe, static_cast<uint64_t>(std::max<off_t>(st.st_size, 0))), '\0');
  ssize_t got = at < 0 ? -1 : ::pread(fd, probe.data(), probe.size(), at);
  if (got < 0) return true;  // the scan meets the error, and says it
  probe.resize(static_cast<size_t>(got));
  return ReadAheadPays(probe, decoded_head, prefilter);
}

}  // namespace

void ScannerTesting::SetReadFigures(Scanner* scanner, ReadFigures figures) {
  scanner->state_->read_figures = figures;
}

void ScannerTesting::ReadAheadWhateverTheProbe(Scanner* scanner) { scanner->state_->probe_files = false; }

Scanner::Scanner(const RuleSet& rules, ScanOptions options)
    : state_(std::make_unique<State>(rules, std::move(options))) {}
Scanner::~Scanner() = default;

bool Scanner::ScanFd(int fd, const std::string& name, const std::string& host) {
  off_t start = ::lseek(fd, 0, SEEK_CUR);  // before any read: where a file's probe starts
  FdSource raw(fd);
  raw.StopWhen(state_->options.cancel);  // an interrupt ends a wait on a quiet pipe
  raw.CountInto(state_->options.bytes_read);
  std::unique_ptr<ByteSource> decompressed = OpenDecompressing(&raw);
  std::string head;
  RecordFormat record = LookForRecord(decompressed.get(), &head);
  if (record != RecordFormat::kNone)
    return state_->ScanRecord(record, decompressed.get(), std::move(head), name, host);
  bool read_ahead =
      state_->options.read_ahead &&
      ReadAheadPaysFor(fd, start, head, *state_->recognizer.shared_prefilter(), state_->probe_files);
  PrefixedSource rest(std::move(head), decompressed.get());  // a read error recurs, and is said, below
  ByteSource* source = &rest;
  if (read_ahead) {
    std::atomic<bool> stop_reading{false};
    raw.StopWhen(state_->options.cancel, &stop_reading);
    FigureReader figures(RuleDataOf(state_->rules), state_->recognizer.shared_prefilter());
    ReadAheadSource ahead(source, &figures, state_->read_figures, state_->options.max_line_bytes,
                          &stop_reading);
    return state_->Scan(&ahead, name, host, &ahead);
  }
  return state_->Scan(source, name, host);
}

void Scanner::ScanText(std::string_view text, const std::string& name) {
  StringSource source(text);
  state_->Scan(&source, name, "");
}

bool Scanner::ScanFile(const std::string& path, const std::string& host) {
  if (path == "-") return ScanFd(STDIN_FILENO, "<stdin>", host);
  struct stat st;
  bool fifo = ::stat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | (fifo ? O_NONBLOCK : 0));
  if (fifo && fd >= 0 && !WaitForWriter(fd, state_->options.cancel)) {
    ::close(fd);
    state_->report.interrupted = true;  // Ctrl-C while the FIFO waited for its writer
    return false;
  }
  if (fd < 0) {
    int err = errno;
    state_->AddProblem(Problem::Severity::kError, path, std::strerror(err),
                       err == ENOENT ? "check the path" : "check the file's permissions");
    state_->report.inputs.push_back(InputSummary{path, 0, 0, false, ""});
    return false;
  }
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    state_->AddProblem(
        Problem::Severity::kError, path, "is a directory",
        "give the log files inside it (e.g. " + path + "/*.log), or -r to read it recursively");
    state_->report.inputs.push_back(InputSummary{path, 0, 0, false, ""});
    return false;
  }
  bool ok = ScanFd(fd, path, host);
  ::close(fd);
  return ok;
}

Report Scanner::Finish() {
  State& s = *state_;
  s.recognizer.Finish();
  s.report.incidents = s.grouper.Take();
  s.grouper.folded().Report(&s.report.problems);
  s.report.not_kept = s.grouper.folded().not_kept;
  std::vector<MemorySeries> series = s.series.Take();
  AttachSeries(series, &s.report.incidents);
  s.history.Attach(&s.report.incidents);
  s.budget.Attach(&s.report.incidents);
  s.report.budgets = s.budget.PerInput();
  for (auto& growth : GrowthCandidates(series, s.report.incidents)) {
    if (Explained(RuleDataOf(s.rules), s.options.chip, &growth))
      s.report.incidents.push_back(std::move(growth));
  }
  s.history.AttachAftermath(&s.report.incidents);
  s.history.AttachPhase(&s.report.incidents);
  FinishReport(RuleDataOf(s.rules), s.options.chip, &s.report);
  s.CapProblems();
  if (s.dropped_problems > 0) {
    s.AddProblem(Problem::Severity::kWarning, "oomlens",
                 std::to_string(s.dropped_problems) + " more warnings not shown", "");
  }
  return std::move(s.report);
}

bool ReadRun(int fd, const std::string& name, const RuleSet& rules, const ScanOptions& options,
             Report* report, RunKind* kind, std::string* error) {
  FdSource raw(fd);
  raw.StopWhen(options.cancel);
  std::unique_ptr<ByteSource> source = OpenDecompressing(&raw);
  std::string text;
  bool ok = true;
  Report read;
  if (ReadReportOrLook(source.get(), &text, &read, &ok, error)) {
    *kind = RunKind::kReport;
    if (ok) *report = Refinish(std::move(read), rules, options.chip);
    return ok;
  }
  *kind = RunKind::kLog;
  Scanner scanner(rules, options);
  PrefixedSource rest(std::move(text), source.get());  // what was read to look is scanned too
  std::string head;
  RecordFormat record = LookForRecord(&rest, &head);
  if (record != RecordFormat::kNone) {
    ok = scanner.state_->ScanRecord(record, &rest, std::move(head), name, "");
  } else {
    PrefixedSource log(std::move(head), &rest);
    ok = scanner.state_->Scan(&log, name, "");
  }
  *report = scanner.Finish();
  return ok;
}

}  // namespace oomlens
