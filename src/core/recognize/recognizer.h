// Recognition: turns cleaned lines into Events using the signatures.
//
// A line holding a signature's start opens a message. Following lines of the
// same stream (host tag) join it:
//   - while the message lacks its required facts, any non-blank line joins
//     (up to max_wrap), unless it starts a message of another signature of
//     equal or higher priority: this is how wrapped and pasted messages read;
//   - once it has them but is not complete, a line that starts a message closes it;
//   - once complete (the 'complete' pattern matches), only 'follow' lines join
//     (one blank line between them is allowed).
// The joined text (lines separated by a space) is then matched by every fact pattern.
// A message whose stream stays silent for a while is closed, so a host that never
// prints again does not keep the scanner off its fast path.
// Events of a signature that 'annotates' other kinds (a warning that precedes an
// OOM) are held and their facts added to the next event of those kinds in the input.
// A signature that comes 'after' other kinds (an allocation dump printed right
// after the OOM message) is tried only on the few lines that follow an event of
// those kinds in the same stream; its entries and facts join that event, which
// is held back until no listing can follow any more. A signature that comes
// 'before' other kinds (a usage table printed right before the failure) is held
// until the next event of the stream: when that event is of those kinds and starts
// within a few lines, the listing's facts join it. A listing never takes a line that
// starts a message of its own.
#ifndef OOMLENS_CORE_RECOGNIZE_RECOGNIZER_H_
#define OOMLENS_CORE_RECOGNIZE_RECOGNIZER_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/input/line_cleaner.h"
#include "core/input/line_reader.h"
#include "core/input/logical_lines.h"
#include "core/model/event.h"
#include "core/model/figure.h"
#include "core/model/listing_sink.h"
#include "core/recognize/figure_reader.h"
#include "core/rules/prefilter.h"
#include "core/rules/rule_data.h"
#include "oomlens/report.h"

namespace oomlens {

/// Receives each recognised event.
using EventSink = std::function<void(Event&&)>;

class Recognizer {
 public:
  Recognizer(const RuleData& rules, EventSink sink, std::vector<Problem>* problems);

  /// Starts a new input; closes what the previous one left open. default_host
  /// names the machine of events whose lines carry no host tag.
  void BeginInput(const std::string& name, int index, const std::string& default_host = "");
  /// Feeds one raw line of the current input. prepared, when given, is what the
  /// read-ahead thread read from a figure line: taken when it is this line and
  /// no message is open (then it is what reading the line here would give).
  void Feed(const Line& line, const PreparedFigure* prepared = nullptr);
  /// Closes every open message (end of input).
  void Finish();
  /// True when no message is open: lines without a literal cannot matter.
  bool idle() const { return open_.empty() && pending_.empty() && lines_.idle(); }
  /// True while the paste restorer reads every line: knowing which lines hold no
  /// literal (Line::clear) spares it a search per line.
  bool restoring() const { return lines_.restoring(); }
  /// Offset of the first literal in text, or npos (the prefilter).
  size_t FindCandidate(std::string_view text, NewlineTally* counted) const {
    return prefilter_->Find(text, counted);
  }
  const std::shared_ptr<const Prefilter>& shared_prefilter() const { return prefilter_; }
  /// Where figures (series and activity signatures read from one line) go, as
  /// views: cheaper than events on logs with a figure every step. Figures are
  /// dropped until a sink is set.
  void set_figure_sink(std::function<void(const Figure&)> sink) { figure_sink_ = std::move(sink); }
  /// Emits annotation events as events of their own (for checking samples).
  void set_emit_annotations(bool emit) { emit_annotations_ = emit; }
  /// Where the entries of a listing that follows its event go as its pieces are
  /// read (a scan: a summariser that keeps the largest, so a dump of 100,000
  /// entries is never held whole). Unset: every entry is kept, for grouping to
  /// summarise.
  void set_listing_sinks(ListingSinkFactory listing_sinks) { listing_sinks_ = std::move(listing_sinks); }

 private:
  struct Open {
    const Signature* sig = nullptr;
    std::string text;                   // message lines joined by spaces
    std::vector<std::string> messages;  // the message lines, for item listings
    std::vector<std::string> excerpt;
    Location where;
    LineContext context;
    int lines = 0, wrapped = 0, blank_run = 0;
    bool complete = false, has_required = false;
    bool listing_after = false;  // opened as the listing that follows a pending event
    uint64_t excerpt_total = 0;
    uint64_t last_line = 0;    // input line that last joined it
    size_t dropped_lines = 0;  // listing lines beyond what is kept for items
    struct Tally {
      double sum = 0, max = 0;
      int64_t count = 0;
    };
    std::vector<Tally> tallies;  // one per signature aggregate
  };
  enum class Step { kJoined, kClosed };
  // An event that a listing ('after' signature) may still follow.
  struct Pending {
    Event event;
    uint64_t last_line = 0;                // last line of the event or of a listing that joined it
    bool warned = false;                   // a listing was cut to what is kept
    std::unique_ptr<ListingSink> listing;  // the entries of the listings that joined it
  };
  // A listing ('before' signature) waiting for the event it precedes.
  struct Preceding {
    const Signature* sig = nullptr;
    Event listing;
    uint64_t last_line = 0;
    bool after_frame = false;  // the last line bridged was a traceback's 'File "...", line N'
  };

  void Route(const LogicalLine& line);
  bool Busy() const;  // a message open, an event waiting for its listing, a traceback before
  bool MayMatter(std::string_view text, bool known_candidate) const;
  // 1 + the index of the signature whose start text holds, 0 for none, PasteRestorer::kNoLiteral
  // when text holds no literal
  int HoldsStart(std::string_view text);
  const Signature* StartOf(int holds_start) const;  // HoldsStart's answer as a signature
  // known_start: HoldsStart's answer for text (its start need not be looked for again),
  // PasteRestorer::kNotTested when not known.
  void FeedLogical(std::string_view text, uint64_t number, std::string_view host,
                   int known_start = PasteRestorer::kNotTested);
  void CloseAll();
  const Signature* FindListingStart(const std::string& stream, std::string_view message) const;
  void OpenMessage(const Signature* sig, const CleanLine& line, uint64_t number, bool listing_after = false);
  Event NewEvent(const Signature& sig, const LineContext& context, const Location& where) const;
  void EmitFigure(const Signature& sig, const CleanLine& line, uint64_t number);
  bool FigureComplete(const Signature& sig, const FigureFacts& facts, uint64_t number);
  void SendFigure(const Signature& sig, const FigureFacts& facts, const std::string& prefix_host,
                  double time_seconds, uint64_t number, std::string_view message);
  Step Continue(Open* open, const CleanLine& line);
  const Signature* MessageStartedBy(const Open& open, std::string_view message) const;
  bool StartsAnotherMessage(const Open& open, std::string_view message) const;
  void Join(Open* open, const CleanLine& line);
  bool Tally(Open* open, std::string_view message);     // true when an aggregate took the line
  void KeepExcerpt(Open* open, const CleanLine& line);  // first lines for the excerpt, and the count
  void UpdateState(Open* open) const;
  void Close(Open&& open);
  void Emit(Event&& event, const Signature& sig, const std::string& stream);
  void JoinListing(Event&& listing, const Signature& sig, const std::string& stream);
  static Event Released(Pending&& pending);
  void JoinPreceding(Event* event, const std::string& stream);
  void BridgePreceding(const std::string& stream, uint64_t first_line, uint64_t last_line);
  void DropStalePreceding(uint64_t line);
  void BridgeTraceback(const std::string& stream, std::string_view message, uint64_t line);
  static void AddListing(Event&& listing, const Signature& sig, Event* event);
  bool StartsOwnMessage(std::string_view message, const Signature& listing, bool follows_event) const;
  void FlushPending(uint64_t before_line);  // emits events no listing can follow any more
  void CloseStale(uint64_t line);

  const RuleData& rules_;
  EventSink sink_;
  std::function<void(const Figure&)> figure_sink_ = [](const Figure&) {};
  struct FigureInfos {
    const FactInfo *used, *limit, *key, *program;
  } figure_infos_{};
  FigureFacts figure_facts_;  // scratch of EmitFigure
  StartMatch start_match_;    // how FeedLogical's FindStart matched the line's start
  std::vector<Problem>* problems_;
  std::shared_ptr<const Prefilter> prefilter_;
  LineCleaner cleaner_;
  std::map<std::string, Open> open_;                             // by stream (host tag)
  std::vector<std::pair<const Signature*, Event>> annotations_;  // waiting for their event
  std::map<std::string, Pending> pending_;                       // by stream: events a listing may follow
  std::set<std::string> listing_targets_;                        // kinds some 'after' signature follows
  std::map<std::string, Preceding> preceding_;                   // by stream: listings before an event
  std::string input_;
  std::string default_host_;
  FigureReader reader_;  // finds starts and reads figures
  LogicalLines lines_;   // physical lines to logical ones (CRI, carriage returns, JSON, pastes)
  const std::vector<std::string_view>* physical_ = nullptr;  // the printed lines of the logical line fed
  int input_index_ = 0;
  uint64_t next_sweep_ = 0;
  uint64_t current_line_ = 0;
  bool emit_annotations_ = false;
  ListingSinkFactory listing_sinks_;
};

/// Recognises every event of text as one whole input named "sample" (rule
/// samples, tests). Annotations come out as events when emit_annotations;
/// figures as events too, with the facts their signature reads.
std::vector<Event> RecognizeText(const RuleData& rules, std::string_view text, bool emit_annotations,
                                 std::vector<Problem>* problems);

}  // namespace oomlens

#endif  // OOMLENS_CORE_RECOGNIZE_RECOGNIZER_H_
