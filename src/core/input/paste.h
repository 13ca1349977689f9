// Restores the logical lines of pasted text before recognition.
//
// Text copied into a bug report, a chat, an email or a notebook comes back
// re-shaped: quoted with '> ', in markdown list items, in code fences and inline
// backticks, figures in **bold**, HTML entities, line-number gutters, and
// wrapped at some width wherever a space fell (inside a sentence, between a
// number and its unit). The restorer takes the lines of one input and gives
// back logical lines:
//   - decorations go: quote markers and gutters (outer), fences (a block
//     break), backticks, '**' and entities (inner); list markers stay for the
//     cleaner, but a list item always starts a new line;
//   - a line joins the one before it when the greedy-wrap test says a wrap split
//     them: within a block (lines between blank lines, fences, a change of quote
//     depth or stream) of width W (its longest line), line A was cut before line
//     B's first word when len(A) + 1 + len(word) > W. A line that starts a log
//     record (a glog, timestamp, level or host prefix), a traceback line, an
//     exception, a list item, a table row or a line holding a message's start
//     never joins, and lines of one shape (same first word: a listing) stay
//     apart; nor do lines holding a start that are cut before again and again
//     in a block where no other line is (records of a log of one width). When
//     only line A is that long, B must also read on from it (a lower-case word,
//     a size, a unit after A's number). A line cut inside a message's start
//     (neither line holds it, the two together do) always joins.
// A logical line keeps the number of its first physical line.
//
// Machine logs keep the fast path: the restorer reads the first kWindowBytes of
// an input, and stays on past them only while each window looked pasted (a share
// of its lines were decorated or joined: 1% in the first, 10% after it). Memory is bounded by the block cap;
// at the cap, the last logical line (perhaps a message wrapped over the cap) starts the next block.
#ifndef OOMLENS_CORE_INPUT_PASTE_H_
#define OOMLENS_CORE_INPUT_PASTE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/input/line_cleaner.h"

namespace oomlens {

class PasteRestorer {
 public:
  /// Receives each logical line with the number of its first physical line and
  /// the physical lines it was restored from, as printed (for excerpts).
  /// known_start: what StartsMessage said of text, when text is one physical line
  /// sent as it was tested (recognition need not search it or look for its start
  /// again); kNotTested otherwise.
  using Sink = std::function<void(std::string_view text, uint64_t number, const std::string& host,
                                  const std::vector<std::string_view>& physical, int known_start)>;
  /// Which message's start text holds (it is recognised on its own): 0 for none,
  /// kNoLiteral when it holds none of the rules' literals either (nothing in it can
  /// matter to recognition), else a number that is the same for every start of one signature.
  using StartsMessage = std::function<int(std::string_view text)>;
  static constexpr int kNoLiteral = -1;
  static constexpr int kNotTested = -2;  ///< StartsMessage was not asked of a logical line as sent

  static constexpr uint64_t kWindowBytes = 1 << 20;
  static constexpr size_t kMaxBlockLines = 256;
  static constexpr size_t kMaxLogicalBytes = 64 * 1024;
  static constexpr size_t kMaxPastedLine = 64 * 1024;  ///< longer lines pass as they are

  PasteRestorer(Sink sink, StartsMessage starts_message);

  /// A new input: the restorer is on again for its first kWindowBytes.
  void Begin();
  /// One physical line (without its newline) of the current input. record: the line
  /// came out of a structured envelope (a JSON log record's payload): a record of its
  /// own, never a wrap's rest. clear: text holds none of the rules' literals (the
  /// reader's search said so), so StartsMessage would say kNoLiteral of it and of
  /// any part of it: it is not asked.
  void Push(std::string_view text, uint64_t number, const std::string& host, bool record = false,
            bool clear = false);
  /// Hands on every line still held (end of input, or before the fast path).
  void Flush();
  /// Whether lines should go through Push; false once a machine log's window ended.
  bool active() const { return active_; }

  /// The decorations of one line taken off (tests, and the cleaner's callers).
  struct Piece {
    /// A part of the printed line, as a place in it; a copy of its own only when
    /// bytes inside it went (ANSI escapes, markup): most lines cost one copy.
    class Part {
     public:
      void View(const std::string& printed, std::string_view part) {
        own_.clear();
        owned_ = false;
        at_ = static_cast<size_t>(part.data() - printed.data());
        size_ = part.size();
      }
      void Own(std::string text) {
        own_ = std::move(text);
        owned_ = true;
      }
      bool owned() const { return owned_; }  ///< bytes went from inside it: no part of the printed line
      void RemovePrefix(size_t n) {
        if (owned_) own_.erase(0, n);
        else at_ += n, size_ -= n;
      }
      std::string_view In(const std::string& printed) const {
        return owned_ ? std::string_view(own_) : std::string_view(printed).substr(at_, size_);
      }

     private:
      std::string own_;
      bool owned_ = false;
      size_t at_ = 0, size_ = 0;
    };

    std::string printed;  ///< the line as printed
    Part raw_part, content_part;
    size_t key_size = 0;  ///< of key(), which starts raw's first word's letters
    size_t key_at = 0;
    /// Without quote markers, gutters, ANSI escapes and overwritten text.
    std::string_view raw() const { return raw_part.In(printed); }
    /// raw without backticks, '**' and entities (trailing bytes kept).
    std::string_view content() const { return content_part.In(printed); }
    /// The letters raw's first word starts with (Key): lines of one shape share it.
    std::string_view key() const { return raw().substr(key_at, key_size); }
    size_t columns = 0;        ///< what a wrap measured: raw with its quote marks
    size_t first_word = 0;     ///< the length of raw's first word: what a wrap would have moved
    bool column_gap = false;   ///< raw has a table's column gap (HasColumnGap)
    bool inner_space = false;  ///< raw has a space after its first word: wider than one word
    uint64_t number = 0;
    std::string host;
    int depth = 0;                ///< quote depth
    bool breaks = false;          ///< blank or a fence: ends a block
    bool item = false;            ///< a list item: starts a new line
    bool log_prefix = false;      ///< starts with a log record's prefix
    bool starts_record = false;   ///< a log prefix, a traceback line or an exception: never continues
    bool holds_start = false;     ///< holds a message's start: continues only a line cut mid-sentence
    int start_of = 0;             ///< whose start it holds (StartsMessage)
    int sent_start = kNotTested;  ///< StartsMessage of its content, when that is what would be sent
    bool bare_prefix = false;     ///< a log prefix and nothing else: the message was cut off it
    bool decorated = false;
  };
  /// bare_prefix is left to the block (MarkBarePrefixes). storage: a buffer to keep
  /// the printed line in (a spare one keeps its room: no allocation per line).
  static Piece Strip(std::string_view text, std::string storage = {});
  /// A log prefix with nothing after it but a level, as cleaner reads content
  /// ("2025-07-31 20:22:43.04: I"): its message was cut off it. Most lines are
  /// refused by their last byte, without cleaning.
  static bool IsBarePrefix(std::string_view content, LineCleaner* cleaner);

 private:
  struct Block {
    size_t width = 0;      ///< the width a wrap cut it at (its longest line with a space)
    bool wrapped = false;  ///< most lines that may continue another were cut before them
    int rest_cuts = 0;     ///< lines cut before that hold no message's start
    int start_cuts = 0;    ///< lines cut before that hold one
    /// Per first word (its letters, Piece::key): lines, lines that may continue
    /// the one before them, of those cut before. Views into the block's pieces;
    /// a short list, searched in order (blocks hold at most kMaxBlockLines lines).
    struct KeyCount {
      std::string_view key;
      int lines = 0, may_continue = 0, cut = 0;
    };
    std::vector<KeyCount> keys;
    const KeyCount* Find(std::string_view key) const;
    KeyCount& At(std::string_view key);
  };
  void ShapeOf(const std::vector<Piece>& block, Block* shape) const;
  static bool MayContinue(const Piece& a, const Piece& b, const Block& block);
  static bool Cut(const Piece& a, const Piece& b, size_t width);
  void Take(Piece&& piece);
  void EmitBlock(bool keep_last = false);
  void MarkBarePrefixes(std::vector<Piece>* block);
  bool Joins(const Piece& a, const Piece& b, const Block& block) const;
  bool StartSpans(const Piece& a, const Piece& b) const;
  void EndWindowIfMachineLog();

  Sink sink_;
  LineCleaner cleaner_;  // tells a bare log prefix
  StartsMessage starts_message_;
  void Send(std::string_view logical, const std::vector<Piece>& block, size_t first, size_t end);
  void Recycle(std::vector<Piece>* block, size_t first, size_t end);

  std::vector<Piece> block_;
  // The buffers of lines sent, for the next lines' printed text, and the physical
  // lines of one logical line as Send hands them on (EmitBlock swaps block_ out
  // first, so a Flush from the sink sends nothing and Send is never re-entered).
  std::vector<std::string> spare_;
  std::vector<std::string_view> physical_;
  // A block's shape and its joined text, their room kept from block to block
  // (a Flush from the sink finds block_ empty and touches neither).
  Block shape_;
  std::string logical_;
  bool active_ = true;
  uint64_t bytes_ = 0, lines_ = 0, decorated_lines_ = 0, joined_lines_ = 0;  // of this window
  uint64_t windows_ = 0;                                                     // windows of this input judged
};

}  // namespace oomlens

#endif  // OOMLENS_CORE_INPUT_PASTE_H_
