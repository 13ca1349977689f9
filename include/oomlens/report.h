// The result of a scan: inputs read, incidents found and problems met.
// A plain value: renderers (text, JSON) take it and print it.
#ifndef OOMLENS_REPORT_H_
#define OOMLENS_REPORT_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "oomlens/facts.h"

namespace oomlens {

/// Where something was read: input name and 1-based line (0: an input of no
/// lines, such as a memory snapshot).
struct Location {
  std::string input;
  uint64_t line = 0;
};

/// "train.log:812", or "snapshot.pickle" for an input of no lines.
inline std::string LocationText(const Location& where) {
  return where.line > 0 ? where.input + ":" + std::to_string(where.line) : where.input;
}

/// One entry of an allocation listing (largest program allocations, peak buffers,
/// allocation dumps). Fields are typed by AllocationFields(): size_bytes, shape ...
struct Allocation {
  Facts fields;
};

/// Listed allocations that share an owner, a label, or one identical shape and
/// size (many identical live buffers: references kept alive).
struct AllocationGroup {
  enum class By { kOwner, kLabel, kIdentical };
  By by = By::kOwner;
  std::string key;  ///< the owner, the label, or "shape, size"
  int64_t count = 0;
  int64_t bytes = 0;
  double share = 0;  ///< bytes / allocated total of the listing
};

/// One memory figure of a series printed periodically (MaxText Memstats,
/// torch.cuda.memory_allocated prints, psutil, nvidia-smi ...).
struct SeriesPoint {
  uint64_t line = 0;
  int64_t bytes = 0;
};

/// Memory figures of one kind, one device, one stream, in log order.
struct MemorySeries {
  std::string name;  ///< what is measured: the signature's title
  std::string key;   ///< the device or label the figures are for (may be empty)
  std::string host;  ///< the stream (host tag) that printed it (may be empty)
  int input_index = 0;
  uint64_t figures = 0;      ///< figures read (points may hold fewer: decimated); JSON "samples"
  int64_t limit_bytes = -1;  ///< the limit printed beside the figures; -1: none
  Location first, last;      ///< first and last figure
  double first_seconds = -1, last_seconds = -1;  ///< timestamps of the first and last timed figures; -1: none
  std::vector<SeriesPoint> points;
};

/// What the input shows of the failing program before the incident: it was
/// compiled (or traced) and the job made progress, so it had loaded and run.
struct ProgramHistory {
  uint64_t compiles = 0;  ///< lines naming the incident's program being compiled, before it
  uint64_t first_compile_line = 0;
  uint64_t steps = 0;  ///< progress lines (completed steps) before it
  uint64_t last_step_line = 0;
};

/// What its input shows after an incident's last occurrence: more work of the
/// job (completed steps, compiles: a retry, training going on) or none (only
/// tracebacks, exit lines, shutdown noise, or the end of the log).
struct Aftermath {
  Location last;              ///< the incident's last occurrence
  int last_input_index = -1;  ///< index of that input; -1: not known
  double last_seconds = -1;   ///< its timestamp, seconds into the year; -1: none
  std::string last_host;      ///< the stream (host tag) that printed it; may be empty
  bool went_on = false;       ///< the job did work after it in that input
  uint64_t work = 0;          ///< work lines (steps, compiles) after it
  uint64_t steps = 0;         ///< of which completed steps
  uint64_t lines = 0;         ///< lines from it to the last work line
  double seconds = -1;        ///< time from it to the last timed work line; -1: not known
  /// Work lines counted before the last occurrence while scanning, in its input
  /// and in its host's stream: what is after it is the count at the end less these.
  struct Mark {
    uint64_t work = 0, steps = 0;
  };
  Mark seen_in_input, seen_in_host;
  bool marked = false;  ///< the marks were taken (an incident of a log's event)
  /// The OOM ended the job: nothing shows it was survived.
  bool ended_job() const { return !went_on; }
};

/// When the memory ran out: the phase of the job, and what decided it (the
/// message family, a traceback frame or log line before it, or the steps and
/// compiles counted before it). docs/json-output.md lists the names.
struct Phase {
  static constexpr const char* kNames[] = {"load",       "compile",       "warmup",   "step",   "eval",
                                           "checkpoint", "graph_capture", "kv_cache", "unknown"};
  std::string name;  ///< one of kNames; empty: not decided yet (reported as unknown)
  std::string
      evidence;    ///< what decided it, e.g. "line 37: File \"trainer.py\", line 3680, in evaluation_loop"
  Location where;  ///< the line that decided it; line 0: none (the family, or nothing)
  const std::string& Name() const;  ///< name, or "unknown"
};

/// One figure of the memory budget a log printed before an incident (a serving
/// engine's start-up ledger, a compiled program's memory stats): what the memory was
/// planned for, each figure as printed, never from a formula.
struct BudgetEntry {
  std::string name;  ///< a fact's name: weights_bytes, kv_cache_bytes, temp_bytes, ...
  FactValue value;
  Location source;  ///< the line that printed it
};

/// A cause rule that matched an incident.
struct CauseMatch {
  std::string cause;  ///< e.g. oversize
  std::string rule;   ///< rule id
  double confidence = 0;
  std::vector<std::string> evidence;  ///< for alternatives: what speaks for this cause
};

/// A tip that does not fit this incident, and why (the cause rule says).
struct Consideration {
  std::string advice, why;
};

/// What oomlens concludes about one incident.
struct Diagnosis {
  CauseMatch best;
  std::string rule_description;  ///< what best.rule means in general, no figures (SARIF's fullDescription)
  std::vector<CauseMatch> alternatives;  ///< other rules that matched, best first
  std::string summary;
  std::vector<std::string> evidence;
  std::vector<std::string> advice;           ///< what applies to this incident, the tip to try first first
  std::vector<Consideration> also_consider;  ///< tips that rank low here, with why
  std::string fit;  ///< what would fit (a batch share, a device count), with its assumption; may be empty
  /// Estimates from the model's configuration the log printed (parameters x bytes per
  /// parameter, the KV cache's bytes per token), each with its constants named: a
  /// second line beside the budget's figures, never in place of them.
  std::vector<std::string> formulas;
  std::vector<std::string> docs;
};

/// An event whose numbers differ from the incident's first one.
struct Outlier {
  Location where;
  std::string who;                       ///< e.g. "partition 7" (may be empty)
  std::vector<std::string> differences;  ///< e.g. "free_bytes 1.20G (first: 147.64M)"
  /// The differing facts as read, so that a merge can compare them with another
  /// report's first occurrence (merging in any grouping gives the same outliers).
  Facts values;
};

/// The least and greatest value a figure took.
struct FigureRange {
  int64_t min = 0, max = 0;
};

/// Which inputs and when an incident occurred, and the range of its figures over
/// every occurrence: what a fleet of logs counts. Merging adds them up, with the
/// same result in any grouping of the parts.
struct Sightings {
  static constexpr size_t kMaxDays = 1000;
  /// The figures whose ranges are kept.
  static constexpr const char* kRangedFacts[] = {"requested_bytes", "free_bytes", "largest_free_bytes",
                                                 "limit_bytes",     "used_bytes", "capacity_bytes"};
  std::vector<int> inputs;               ///< indexes of the inputs (files) it occurred in, ascending
  int last_input = -1;                   ///< the last input it occurred in (while scanning)
  std::string first_time, last_time;     ///< its first and last timed occurrence, ISO 8601; "" none
  std::map<std::string, uint64_t> days;  ///< timed occurrences by day ("2026-11-30"); the earliest kMaxDays
  std::map<std::string, FigureRange> ranges;  ///< of kRangedFacts, over every occurrence that printed them
};

/// The same failure printed by many replicas/partitions/hosts, or repeated.
struct Incident {
  std::string kind, code, title, signature;
  double match =
      1;  ///< how sure the recognition is: 1 for a family's own wording, lower for a structural guess
  uint64_t occurrences = 0;
  Sightings seen;
  Location first;
  std::string first_who;  ///< who printed the first occurrence ("host h, partition 3"), may be empty
  int first_input_index = 0;
  std::set<int64_t> replicas, partitions, ranks;
  std::set<std::string> hosts, devices;
  Facts facts;    ///< facts of the first occurrence (more precise values merged in)
  Facts derived;  ///< computed by oomlens from facts
  std::vector<Outlier> outliers;
  Diagnosis diagnosis;
  std::vector<std::string> excerpt;
  uint64_t excerpt_total = 0;  ///< lines the first occurrence spanned
  /// Entries of the first occurrence's listing, if it had one: its largest, when a
  /// report's allocations would pass its cap (allocation_count says how many were read).
  std::vector<Allocation> allocations;
  std::vector<AllocationGroup> allocation_groups;  ///< of the whole listing, largest first per kind
  Facts listing_facts;  ///< derived from the whole listing before any entry was dropped; empty: not yet
  MemorySeries series;  ///< memory figures printed before it (samples == 0: none)
  ProgramHistory history;
  Aftermath after;                  ///< what came after its last occurrence
  Phase phase;                      ///< when it ran out (the first occurrence's)
  std::vector<BudgetEntry> budget;  ///< the budget its input printed before it, in the order printed
  size_t consequence_of = 0;        ///< 1-based number of the incident this one follows from; 0: a root
  std::string relation;             ///< how it follows (empty for roots)
  /// Read from an allocator's record of the failure (a memory snapshot), not from a
  /// message a log printed.
  bool record = false;
  /// The records joined into this incident of a log (a snapshot whose OOM is this
  /// one), where each was read: its figures and listing are theirs.
  std::vector<Location> records;
  /// A memory record: the kinds of incident it may join, as prefixes ("pytorch_").
  std::vector<std::string> joins;
};

/// Something the user should know about: a skipped line, an unreadable file.
struct Problem {
  enum class Severity { kWarning, kError };
  Severity severity = Severity::kWarning;
  std::string where;    ///< "file:line" or "file"
  std::string message;  ///< what is wrong
  std::string help;     ///< what to do (may be empty)
};

/// One input as read.
struct InputSummary {
  std::string name;
  uint64_t lines = 0;
  uint64_t bytes = 0;
  bool ok = true;
  std::string record;  ///< what the input was when not a log ("memory snapshot"); "" a log
};

/// Events of incidents past the distinct incidents a report keeps (10,000): counted,
/// not grouped. A fleet's totals add them; a warning in problems says so too.
struct EventsNotKept {
  uint64_t events = 0;
  std::map<std::string, uint64_t> kinds;  ///< events by kind
  std::set<int> inputs;                   ///< the inputs they were read in (indices into inputs)
  /// Adds other's counts, its inputs shifted by input_offset (a report merged after others).
  void Add(const EventsNotKept& other, int input_offset);
};

/// The memory budget one input printed (its last value of each figure), whether or
/// not anything failed: a healthy start-up's headroom, the near miss before an OOM.
struct InputBudget {
  std::string input;
  std::vector<BudgetEntry> entries;  ///< in the order first printed
};

/// Everything a scan produced.
struct Report {
  std::vector<InputSummary> inputs;
  std::vector<Incident> incidents;  ///< most important first
  /// Memory held, from allocators' records with no failure in them (a JAX device
  /// memory profile, a PyTorch snapshot with no OOM in its trace) that joined no
  /// incident: what held the memory, not OOMs (no cause, and no exit code of their own).
  std::vector<Incident> memory_records;
  std::vector<InputBudget> budgets;  ///< of the inputs that printed one, in input order
  std::vector<Problem> problems;
  EventsNotKept not_kept;
  bool interrupted = false;  ///< the scan was cancelled before the end of its inputs
};

/// "owner", "label" or "identical": a group's kind as reports name it.
const char* GroupByName(AllocationGroup::By by);

/// Formats a problem as "where: message (help: ...)".
std::string FormatProblem(const Problem& p);

}  // namespace oomlens

#endif  // OOMLENS_REPORT_H_
