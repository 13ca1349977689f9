// The stateless half of recognition: which signature a message starts, and the
// facts a one-line figure (series or activity signature) holds. Nothing here
// depends on earlier lines, so the read-ahead thread can read figure lines
// ahead of the recogniser with a FigureReader of its own (each has its scratch).
#ifndef OOMLENS_CORE_RECOGNIZE_FIGURE_READER_H_
#define OOMLENS_CORE_RECOGNIZE_FIGURE_READER_H_

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/input/line_cleaner.h"
#include "core/model/figure.h"
#include "core/rules/prefilter.h"
#include "core/rules/rule_data.h"
#include "core/rules/signature_patterns.h"

namespace oomlens {

constexpr size_t kMaxMessageBytes = 64 * 1024;  // of a message's text, joined lines included

/// Whether a later value of a fact replaces the kept one: the same value printed
/// more precisely ("3.95G" then "(4,237,689,856 bytes)").
bool Supersedes(const FactValue& value, const FactValue& old);

/// What a figure line holds, read once.
struct FigureFacts {
  std::vector<std::pair<const FactInfo*, FactValue>> facts;         // each fact once
  std::vector<std::pair<const FactInfo*, std::string>> identities;  // host, device ..., as captured
  std::vector<std::string> warnings;  // values that could not be read ("ignored X: why")
  void Clear() {
    facts.clear();
    identities.clear();
    warnings.clear();
  }
  const FactValue* Find(const FactInfo* info) const;
  /// The last value captured for the identity named name, "" when none.
  std::string_view Identity(std::string_view name) const;
  /// Whether every fact sig requires is there.
  bool HasRequired(const Signature& sig) const;
};

/// Where FindStart found a figure's start with one of its fact patterns (its start
/// pattern with captures: they match alike), for ReadFacts to read that match
/// instead of matching the pattern again.
struct StartMatch {
  int fact = -1;  ///< index into the signature's facts; -1: none
  FactMatch match;
};

/// A figure line read by the read-ahead thread, for the recogniser to take as it is
/// when it is idle at that line (no message open, nothing waiting for a listing).
struct PreparedFigure {
  uint64_t offset = 0;  // of the line in the input
  const Signature* sig = nullptr;
  std::string prefix_host;  // from the line's prefix ("" when none)
  double time_seconds = -1;
  FigureFacts figure;
};

class FigureReader {
 public:
  FigureReader(const RuleData& rules, std::shared_ptr<const Prefilter> prefilter);

  /// The signature whose start matches message, highest priority first. Only
  /// signatures one of whose literals the message holds are tried (a substring
  /// search is far cheaper than a regex), and never listings ('after'): those
  /// start only right after their event.
  /// *start, when given, is set to the match of a figure's fact pattern that
  /// served as its start (fact -1 when none did).
  const Signature* FindStart(std::string_view message, StartMatch* start = nullptr) const;
  /// A memory figure or a sign of progress read from one line at once, without
  /// the message machinery (joining, listings, annotations).
  static bool IsFigure(const Signature& sig);
  /// Reads the facts of figure signature sig from message into *out; a fact
  /// pattern start says matched message already is read from that match.
  static void ReadFacts(const Signature& sig, std::string_view message, FigureFacts* out,
                        const StartMatch* start = nullptr);
  /// For the read-ahead thread: a raw line (no CRI or JSON envelope) cleaned, its
  /// signature found and, when it is a figure, its facts read. False otherwise.
  bool Prepare(std::string_view raw_line, uint64_t offset, PreparedFigure* out);

  const Prefilter& prefilter() const { return *prefilter_; }

 private:
  const RuleData& rules_;
  std::shared_ptr<const Prefilter> prefilter_;
  std::vector<std::vector<size_t>> starts_by_literal_;  // literal -> signatures that may start with it
  std::vector<int>
      start_fact_;  // by signature: a figure's fact pattern that matches as its start does, or -1
  mutable std::vector<size_t> literals_present_, candidates_;  // scratch of FindStart
  mutable std::vector<size_t> candidates_for_;                 // the literals candidates_ was made for
  LineCleaner cleaner_;                                        // for Prepare
  StartMatch prepared_start_;                                  // for Prepare
};

}  // namespace oomlens

#endif  // OOMLENS_CORE_RECOGNIZE_FIGURE_READER_H_
