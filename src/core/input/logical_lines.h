// From the physical lines of an input to its logical lines, the input stage's
// last step before recognition:
//   - a CRI partial line ('P') waits for the rest of its line ('F');
//   - carriage returns inside a line (old Mac line ends, a progress bar that
//     overwrote what was printed before it) cut it into parts, each a line of
//     its own with the line's number: an OOM message followed by a progress bar
//     is still a message;
//   - a JSON envelope (Docker json-file, Cloud Logging) gives its payload lines;
//   - pasted text gets its logical lines back (paste.h), for the first window of
//     an input and all of it when that part looked pasted.
// Two questions only recognition can answer are asked through callbacks: whether a
// line holds a message's start (the paste restorer keeps such a line apart), and
// whether a line may matter at all (a JSON envelope without any literal is not
// unwrapped: the fast path stays cheap).
#ifndef OOMLENS_CORE_INPUT_LOGICAL_LINES_H_
#define OOMLENS_CORE_INPUT_LOGICAL_LINES_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/input/line_reader.h"
#include "core/input/paste.h"

namespace oomlens {

/// One logical line, a view valid during the call it is passed to.
struct LogicalLine {
  std::string_view text;
  uint64_t number = 0;           ///< of its first physical line
  std::string_view host;         ///< the machine a JSON envelope named ("" when none)
  bool known_candidate = false;  ///< already known to hold a literal: recognition need not look
  /// The printed lines a paste was restored from, when they differ from text (for excerpts); else null.
  const std::vector<std::string_view>* physical = nullptr;
  /// What the paste restorer's start test (LogicalLines::HoldsStart) said of text,
  /// PasteRestorer::kNotTested when it did not test text as it is here.
  int known_start = PasteRestorer::kNotTested;
  /// Already known to hold no literal (the paste restorer looked).
  bool known_clear() const { return known_start == PasteRestorer::kNoLiteral; }
};

class LogicalLines {
 public:
  using Sink = std::function<void(const LogicalLine&)>;
  /// Which message's start text holds (recognised on its own): 0 for none,
  /// PasteRestorer::kNoLiteral when it holds no literal at all, else a number that is
  /// the same for every start of one signature.
  using HoldsStart = std::function<int(std::string_view text)>;
  /// Whether text can matter to recognition (holds a literal, or a message is open);
  /// known_candidate: the fast path already found a literal in it.
  using MayMatter = std::function<bool(std::string_view text, bool known_candidate)>;

  LogicalLines(Sink sink, HoldsStart holds_start, MayMatter may_matter);

  /// A new input (the paste restorer looks at its first window again).
  void Begin();
  /// One physical line of the current input.
  void Push(const Line& line);
  /// Hands on every line still held (end of input): a CRI partial whose rest never
  /// came is a line too.
  void Flush();
  /// A CRI partial line longer than this is handed on as it is (memory stays bounded).
  static constexpr size_t kMaxPartialBytes = 4 * 1024 * 1024;
  /// True when nothing is held and every line goes straight on: lines without a
  /// literal cannot matter then.
  bool idle() const { return cri_partial_.empty() && !paste_.active(); }
  /// True while the paste restorer reads every line (it asks each line's start).
  bool restoring() const { return paste_.active(); }

 private:
  /// known_clear: the reader's search found no literal in text (Line::clear).
  void Physical(std::string_view text, uint64_t number, bool known_candidate, bool known_clear);
  void Emit(std::string_view text, uint64_t number, bool known_candidate);

  Sink sink_;
  MayMatter may_matter_;
  PasteRestorer paste_;
  void EmitPartial();

  std::string cri_partial_, unwrapped_;  // CRI 'P' lines waiting for their 'F'; scratch
  uint64_t partial_number_ = 0;          // the first 'P' line's number
  std::vector<std::string> payload_lines_;
};

}  // namespace oomlens

#endif  // OOMLENS_CORE_INPUT_LOGICAL_LINES_H_
