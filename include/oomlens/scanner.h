// The pipeline: read lines -> recognise messages -> events -> incidents ->
// derived facts -> causes. Rendering is separate (oomlens/render.h).
//
//   oomlens::RuleSet rules;  rules.LoadBuiltin(&problems);
//   oomlens::Scanner scanner(rules, {});
//   scanner.ScanFile("worker-0.log");
//   scanner.ScanText(pasted, "<paste>");
//   oomlens::Report report = scanner.Finish();
//
// The scanner never prints and never exits: problems go into the report.
#ifndef OOMLENS_SCANNER_H_
#define OOMLENS_SCANNER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "oomlens/chips.h"
#include "oomlens/report.h"
#include "oomlens/rules.h"

namespace oomlens {

struct ScanOptions {
  /// Chip generation (v4, v5e, a100-80 ...) whose memory becomes capacity_bytes
  /// when the log does not print it. Empty: unknown.
  std::string chip;
  /// Longest line read whole; longer lines are cut (with a warning).
  size_t max_line_bytes = 4 * 1024 * 1024;
  /// Polled while reading; when it turns true the scan stops (Scan* return false
  /// and the report is marked interrupted). May be null.
  const std::atomic<bool>* cancel = nullptr;
  /// Read files and pipes on a second thread, which also finds the lines worth
  /// recognising (one more core busy; the same report).
  bool read_ahead = false;
  /// Each scan with these options adds the bytes it reads from files and pipes
  /// (as stored: a compressed file counts its compressed bytes) here, from any
  /// thread; a progress line reads it. May be null.
  std::atomic<uint64_t>* bytes_read = nullptr;
};

/// Reports larger than this are not read back (merge, diff): an error says so.
constexpr size_t kMaxReportBytes = size_t{256} << 20;

/// Reads a report written with --format json from fd (gzip or zstd too), at most
/// kMaxReportBytes. False with *error when it is no such report or too large.
bool ReadJsonReport(int fd, Report* report, std::string* error);

/// One input of ScanEach: a path ("-": the file descriptor stdin_fd) and the host
/// its events without a host tag are from (may be empty).
struct ScanInput {
  std::string path;
  std::string host;
};

/// Scans each input with a scanner of its own (on `jobs` threads), then merges the
/// reports in input order: a file's series, progress and consequences stay in that
/// file, and incidents group across files only by what the merge compares. So -j 1,
/// -j N and `oomlens merge` of per-file reports give the same report. Inputs not
/// begun when options.cancel turns true are not read. *read_all turns false when
/// an input could not be read whole.
Report ScanEach(const std::vector<ScanInput>& inputs, const RuleSet& rules, const ScanOptions& options,
                int jobs, int stdin_fd, bool* read_all);

/// What ReadRun read: a log scanned now, or a report written with --format json.
enum class RunKind { kLog, kReport };

/// One run as `diff` compares it, read from fd once (a pipe works): a report written
/// with --format json (any key order, gzip or zstd too) is read and finished again
/// with rules (Refinish, oomlens/merge.h); anything else is scanned as a log and
/// finished. *kind says which. False when the report is broken or too large (*error
/// says why) or the log could not be read whole (its report's problems say why;
/// what was read counts).
bool ReadRun(int fd, const std::string& name, const RuleSet& rules, const ScanOptions& options,
             Report* report, RunKind* kind, std::string* error);

class Scanner {
 public:
  /// rules must outlive the scanner.
  Scanner(const RuleSet& rules, ScanOptions options);
  ~Scanner();
  Scanner(const Scanner&) = delete;
  Scanner& operator=(const Scanner&) = delete;

  /// Scans a file ("-" is stdin); gzip and zstd are decompressed. Returns false
  /// when it could not be read (the report's problems say why); what was read
  /// before an error counts. host names the machine of events whose lines carry
  /// no host tag (may be empty).
  bool ScanFile(const std::string& path, const std::string& host = "");
  /// Scans an open descriptor until its end; does not close it.
  bool ScanFd(int fd, const std::string& name, const std::string& host = "");
  /// Scans text held in memory (a paste).
  void ScanText(std::string_view text, const std::string& name);

  /// Groups, derives and decides. Call once, after the last Scan*.
  Report Finish();

 private:
  friend struct ScannerTesting;  // core/run/scan_testing.h: knobs only tests turn
  friend bool ReadRun(int fd, const std::string& name, const RuleSet& rules, const ScanOptions& options,
                      Report* report, RunKind* kind, std::string* error);
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace oomlens

#endif  // OOMLENS_SCANNER_H_
