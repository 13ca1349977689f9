// Streams lines from a file descriptor or a string, never holding the whole input.
#ifndef OOMLENS_CORE_INPUT_LINE_READER_H_
#define OOMLENS_CORE_INPUT_LINE_READER_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/input/count_newlines.h"

namespace oomlens {

/// One line without its '\n'. text stays valid until the next call to Next().
struct Line {
  std::string_view text;
  uint64_t number = 0;     ///< 1-based
  uint64_t offset = 0;     ///< byte offset of the line's start in the input
  bool truncated = false;  ///< the line was longer than the cap; text is its start
  bool holds_hit = false;  ///< text holds the byte SkipUntil's finder reported
  bool clear = false;      ///< MarkClear's finder reports nothing in text (nor in any part of it)
};

/// Where bytes come from.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  /// Reads up to n bytes. Returns the count, 0 at end, -1 on error (*error says why).
  virtual long Read(char* buf, size_t n, std::string* error) = 0;
};

/// Reads a file descriptor (retrying on EINTR). Does not close it.
class FdSource : public ByteSource {
 public:
  explicit FdSource(int fd) : fd_(fd) {}
  long Read(char* buf, size_t n, std::string* error) override;
  /// From now on a read waits for data in slices of 100 ms and gives up (-1)
  /// once a given flag is true (either may be null): a pipe whose writer goes
  /// quiet cannot hold a scan that is interrupted, or a thread asked to stop.
  void StopWhen(const std::atomic<bool>* first, const std::atomic<bool>* second = nullptr) {
    stop_[0] = first;
    stop_[1] = second;
  }
  /// Each read adds the bytes it got to *counter (may be null), from any thread.
  void CountInto(std::atomic<uint64_t>* counter) { counter_ = counter; }

 private:
  bool Stopped() const;
  bool Watched() const { return stop_[0] || stop_[1]; }
  int fd_;
  const std::atomic<bool>* stop_[2] = {nullptr, nullptr};
  std::atomic<uint64_t>* counter_ = nullptr;
};

/// Reads from memory.
class StringSource : public ByteSource {
 public:
  explicit StringSource(std::string_view text) : text_(text) {}
  long Read(char* buf, size_t n, std::string* error) override;

 private:
  std::string_view text_;
};

/// Bytes already read (to look at the start of a pipe or a decompressed layer),
/// then the rest of a source, which it may own.
class PrefixedSource : public ByteSource {
 public:
  PrefixedSource(std::string prefix, ByteSource* rest) : prefix_(std::move(prefix)), rest_(rest) {}
  PrefixedSource(std::string prefix, std::unique_ptr<ByteSource> rest)
      : prefix_(std::move(prefix)), owned_(std::move(rest)), rest_(owned_.get()) {}
  long Read(char* buf, size_t n, std::string* error) override;

 private:
  std::string prefix_;
  size_t given_ = 0;
  std::unique_ptr<ByteSource> owned_;  // may be null: rest_ is the caller's
  ByteSource* rest_;
};

/// Appends from source to *text until the source ends or *text holds limit
/// bytes. False (with *error) on a read error.
bool ReadUpTo(ByteSource* source, size_t limit, std::string* text, std::string* error);

/// Splits a ByteSource into lines with a fixed buffer: chunk + max_line bytes.
/// Lines longer than max_line are cut (truncated = true) and their rest skipped.
class LineReader {
 public:
  static constexpr size_t kDefaultChunk = 256 * 1024;
  static constexpr size_t kDefaultMaxLine = 4 * 1024 * 1024;

  explicit LineReader(ByteSource* source, size_t chunk = kDefaultChunk, size_t max_line = kDefaultMaxLine);

  /// Returns the next line, or false at end of input or on a read error.
  bool Next(Line* line);

  /// Returns the offset in text of the first byte of interest, or npos; offset
  /// is where text starts in the input. A finder that counts the newlines it
  /// reads says so in *counted (which starts empty), and they are not counted again.
  using Finder = std::function<size_t(std::string_view text, uint64_t offset, NewlineTally* counted)>;
  /// Drops whole lines that cannot matter without returning them: the next
  /// line Next() returns is the one holding the first byte find() reports (or
  /// the end of input). Line numbers and offsets stay exact. This is the fast
  /// path: most of a log is only searched once and its newlines counted.
  void SkipUntil(const Finder& find);
  /// While every line is wanted (the paste restorer's window), finds ahead in the
  /// buffered lines, once for many: Next() marks those whose text holds nothing
  /// find reports (Line::clear), so they need no search one by one. Lines up to
  /// the first reported byte are marked; a search starts again past its line.
  /// Searches that mark nothing (every line holds a hit, as a dump's do) are
  /// made further and further apart, up to kMaxMarkBackoff lines.
  void MarkClear(const Finder& find);
  static constexpr uint64_t kMaxMarkBackoff = 32;
  /// Empty unless a read failed.
  const std::string& error() const { return error_; }
  uint64_t bytes_read() const { return bytes_read_; }
  uint64_t lines_read() const { return line_number_; }

 private:
  bool Fill();  // reads more bytes after compacting; false at end or error
  void SkipRestOfLine();
  void Emit(size_t length, bool truncated, Line* line);
  void Advance(size_t bytes, const NewlineTally& counted);  // drops bytes of whole lines, counting them

  ByteSource* source_;
  size_t chunk_, max_line_;
  std::unique_ptr<char[]> buf_;  // chunk + max_line bytes, uninitialised
  size_t capacity_;
  size_t start_ = 0, end_ = 0;
  bool eof_ = false;
  bool skip_rest_ = false;    // the last line was cut: drop the rest of it
  bool hit_pending_ = false;  // SkipUntil stopped at a hit, at input offset hit_offset_
  uint64_t hit_offset_ = 0;
  // MarkClear: the lines ending (their newline too) at or before input offset
  // clear_end_ hold nothing its finder reports; after a search that marked none,
  // none again before line_number_ reaches search_from_line_ (mark_backoff_ lines on).
  uint64_t clear_end_ = 0;
  uint64_t mark_backoff_ = 0, search_from_line_ = 0;
  uint64_t line_number_ = 0, bytes_read_ = 0, consumed_ = 0;
  std::string error_;
};

}  // namespace oomlens

#endif  // OOMLENS_CORE_INPUT_LINE_READER_H_
