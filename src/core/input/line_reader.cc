#include "core/input/line_reader.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/input/count_newlines.h"

namespace oomlens {

bool FdSource::Stopped() const {
  for (const auto* flag : stop_)
    if (flag && flag->load(std::memory_order_relaxed)) return true;
  return false;
}

long FdSource::Read(char* buf, size_t n, std::string* error) {
  while (Watched()) {
    if (Stopped()) {
      *error = "reading stopped";
      return -1;
    }
    pollfd ready{fd_, POLLIN, 0};
    int got = ::poll(&ready, 1, 100);
    if (got > 0 || (got < 0 && errno != EINTR)) break;  // data, end, an error: read() tells which
  }
  for (;;) {
    ssize_t got = ::read(fd_, buf, n);
    if (got > 0 && counter_) counter_->fetch_add(static_cast<uint64_t>(got), std::memory_order_relaxed);
    if (got >= 0) return static_cast<long>(got);
    if (errno == EINTR) continue;
    *error = std::strerror(errno);
    return -1;
  }
}

long StringSource::Read(char* buf, size_t n, std::string*) {
  size_t count = std::min(n, text_.size());
  std::memcpy(buf, text_.data(), count);
  text_.remove_prefix(count);
  return static_cast<long>(count);
}

long PrefixedSource::Read(char* buf, size_t n, std::string* error) {
  if (given_ < prefix_.size()) {
    size_t count = std::min(n, prefix_.size() - given_);
    std::memcpy(buf, prefix_.data() + given_, count);
    given_ += count;
    return static_cast<long>(count);
  }
  return rest_->Read(buf, n, error);
}

bool ReadUpTo(ByteSource* source, size_t limit, std::string* text, std::string* error) {
  char buf[64 * 1024];
  while (text->size() < limit) {
    long n = source->Read(buf, std::min(sizeof buf, limit - text->size()), error);
    if (n < 0) return false;
    if (n == 0) break;
    text->append(buf, static_cast<size_t>(n));
  }
  return true;
}

LineReader::LineReader(ByteSource* source, size_t chunk, size_t max_line)
    : source_(source),
      chunk_(chunk),
      max_line_(max_line),
      buf_(new char[chunk + max_line]),
      capacity_(chunk + max_line) {}

bool LineReader::Fill() {
  if (eof_) return false;
  if (start_ > 0) {
    std::memmove(buf_.get(), buf_.get() + start_, end_ - start_);
    end_ -= start_;
    start_ = 0;
  }
  size_t room = capacity_ - end_;
  long got = source_->Read(buf_.get() + end_, std::min(room, chunk_), &error_);
  if (got <= 0) {
    eof_ = true;
    return false;
  }
  end_ += static_cast<size_t>(got);
  bytes_read_ += static_cast<uint64_t>(got);
  return true;
}

void LineReader::SkipRestOfLine() {
  for (;;) {
    const char* nl = static_cast<const char*>(std::memchr(buf_.get() + start_, '\n', end_ - start_));
    if (nl) {
      size_t skipped = static_cast<size_t>(nl - (buf_.get() + start_)) + 1;
      consumed_ += skipped;
      start_ += skipped;
      return;
    }
    consumed_ += end_ - start_;
    start_ = end_ = 0;
    if (!Fill()) return;
  }
}

void LineReader::Emit(size_t length, bool truncated, Line* line) {
  line->text = std::string_view(buf_.get() + start_, length);
  line->number = ++line_number_;
  line->offset = consumed_;
  line->truncated = truncated;
  line->holds_hit = hit_pending_ && hit_offset_ >= consumed_ && hit_offset_ < consumed_ + length;
  line->clear =
      !truncated && consumed_ + length < clear_end_;  // its newline, at consumed_ + length, before it
  hit_pending_ = false;
  size_t advance = truncated ? length : std::min(length + 1, end_ - start_);
  start_ += advance;
  consumed_ += advance;
  skip_rest_ = truncated;
}

bool LineReader::Next(Line* line) {
  if (skip_rest_) {
    skip_rest_ = false;
    SkipRestOfLine();
  }
  size_t scanned = 0;  // bytes of the pending line already searched for '\n'
  for (;;) {
    const char* base = buf_.get() + start_;
    size_t pending = end_ - start_;
    const char* nl = static_cast<const char*>(std::memchr(base + scanned, '\n', pending - scanned));
    if (nl) {
      size_t length = static_cast<size_t>(nl - base);
      if (length > max_line_) {
        Emit(max_line_, true, line);
      } else {
        Emit(length, false, line);
      }
      return true;
    }
    if (pending >= max_line_) {
      Emit(max_line_, true, line);
      return true;
    }
    scanned = pending;
    if (!Fill()) {
      if (pending == 0) return false;
      Emit(pending, false, line);  // last line without '\n'
      return true;
    }
  }
}

// counted: what the finder counted of the pending bytes. Past counted.through
// they are counted here; short of it, the bytes in between hold no newline
// (they lie in the hit's line, whose newline before it ends `bytes`).
void LineReader::Advance(size_t bytes, const NewlineTally& counted) {
  const char* begin = buf_.get() + start_;
  line_number_ += counted.newlines;
  if (bytes > counted.through)
    line_number_ += CountNewlines(begin + counted.through, bytes - counted.through);
  start_ += bytes;
  consumed_ += bytes;
}

void LineReader::SkipUntil(const Finder& find) {
  hit_pending_ = false;
  if (skip_rest_) {
    skip_rest_ = false;
    SkipRestOfLine();
  }
  for (;;) {
    const char* base = buf_.get() + start_;
    size_t pending = end_ - start_;
    NewlineTally counted;
    size_t hit = find(std::string_view(base, pending), consumed_, &counted);
    size_t limit = hit == std::string_view::npos ? pending : hit;  // skip lines ending before here
    uint64_t hit_offset = consumed_ + hit;
    const void* last_nl = limit > 0 ? ::memrchr(base, '\n', limit) : nullptr;
    if (last_nl) Advance(static_cast<size_t>(static_cast<const char*>(last_nl) - base) + 1, counted);
    if (hit != std::string_view::npos) {
      hit_pending_ = true;
      hit_offset_ = hit_offset;
      return;
    }
    if (end_ - start_ >= max_line_) return;  // a line too long to hold: Next() cuts it
    if (!Fill()) return;                     // the end: Next() returns what is left
  }
}

void LineReader::MarkClear(const Finder& find) {
  if (skip_rest_ || consumed_ < clear_end_ || line_number_ < search_from_line_) return;
  if (!std::memchr(buf_.get() + start_, '\n', end_ - start_)) {  // not one whole line yet
    if (end_ - start_ >= max_line_ || !Fill()) return;           // a line Next() cuts, or the end
  }
  const char* base = buf_.get() + start_;
  size_t pending = end_ - start_;
  size_t hit = find(std::string_view(base, pending), consumed_, nullptr);
  size_t limit = hit == std::string_view::npos ? pending : hit;  // the lines ending before here
  const void* last_nl = limit > 0 ? ::memrchr(base, '\n', limit) : nullptr;
  if (last_nl) clear_end_ = consumed_ + static_cast<uint64_t>(static_cast<const char*>(last_nl) - base) + 1;
  mark_backoff_ = last_nl ? 0 : std::min(std::max<uint64_t>(1, 2 * mark_backoff_), kMaxMarkBackoff);
  search_from_line_ = line_number_ + mark_backoff_;
}

}  // namespace oomlens
