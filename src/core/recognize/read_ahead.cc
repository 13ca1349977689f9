#include "core/recognize/read_ahead.h"

#include <algorithm>
#include <cstring>

namespace oomlens {
namespace {

// A line longer than this is handed to the scanner as a candidate whole (it
// reads long lines cut anyway), so the read-ahead never holds more of one line.
constexpr size_t kMaxCarry = 1 << 20;

}  // namespace

ReadAheadSource::ReadAheadSource(ByteSource* inner, FigureReader* figures, ReadFigures when, size_t max_line,
                                 std::atomic<bool>* stop_reads)
    : inner_(inner),
      figures_(figures),
      when_(when),
      max_figure_line_(std::min(max_line, kMaxMessageBytes)),  // the scanner would see a longer line cut
      stop_reads_(stop_reads),
      thread_([this] { Produce(); }) {}

ReadAheadSource::~ReadAheadSource() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  if (stop_reads_) stop_reads_->store(true);
  free_.notify_all();
  thread_.join();
}

void ReadAheadSource::Produce() {
  for (;;) {
    Chunk chunk;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      free_.wait(lock, [this] { return stop_ || full_.size() < kChunksInFlight; });
      if (stop_) return;
      if (!spare_.empty()) {
        chunk = std::move(spare_.back());
        spare_.pop_back();
      }
      read_figures_ =
          when_ == ReadFigures::kAlways || (when_ == ReadFigures::kWhenBehind &&
                                            full_.size() >= kChunksInFlight / 2);  // the scanner is slower
    }
    chunk.bytes.resize(kChunk);
    std::string error;
    long got = inner_->Read(chunk.bytes.data(), kChunk, &error);
    chunk.size = got > 0 ? static_cast<size_t>(got) : 0;
    chunk.last = got <= 0;
    chunk.hits.clear();
    chunk.figure_count = 0;  // the figures' storage is reused: no allocation per line
    chunk.scan_cursor = 0;
    SearchChunk(&chunk);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (got < 0) error_ = error;
      full_.push_back(std::move(chunk));
    }
    ready_.notify_one();
    if (got <= 0) return;
  }
}

void ReadAheadSource::FindHits(std::string_view text, uint64_t offset, Chunk* chunk) {
  size_t pos = 0;  // a line start
  while (pos < text.size()) {
    size_t hit = figures_->prefilter().Find(text.substr(pos));
    if (hit == std::string_view::npos) return;
    chunk->hits.push_back(offset + pos + hit);
    size_t newline = text.find('\n', pos + hit);
    if (read_figures_) {
      const void* before =
          hit > 0 ? ::memrchr(text.data() + pos, '\n', hit) : nullptr;  // the hit line's start
      size_t start = before ? static_cast<size_t>(static_cast<const char*>(before) - text.data()) + 1 : pos;
      size_t end = newline == std::string_view::npos ? text.size() : newline;
      if (chunk->figure_count == chunk->figures.size()) chunk->figures.emplace_back();
      PreparedFigure* figure = &chunk->figures[chunk->figure_count];
      if (end - start <= max_figure_line_ &&
          figures_->Prepare(text.substr(start, end - start), offset + start, figure))
        ++chunk->figure_count;
    }
    if (newline == std::string_view::npos) return;
    pos = newline + 1;
  }
}

// Searches the lines the chunk completes; keeps its unfinished last line for
// the next chunk.
void ReadAheadSource::SearchChunk(Chunk* chunk) {
  std::string_view data(chunk->bytes.data(), chunk->size);
  uint64_t start = read_offset_;
  read_offset_ += data.size();
  if (chunk->last) {  // the unfinished line is the last one
    if (!carry_.empty()) FindHits(carry_, carry_offset_, chunk);
    carry_.clear();
    return;
  }
  const void* last_newline = ::memrchr(data.data(), '\n', data.size());
  if (!last_newline) {
    if (carry_.empty()) carry_offset_ = start;
    if (carry_.size() < kMaxCarry) carry_.append(data);
    if (carry_.size() >= kMaxCarry && (chunk->hits.empty() || chunk->hits.back() != carry_offset_))
      chunk->hits.push_back(carry_offset_);  // hand the long line over as it is (repeats are harmless)
    return;
  }
  size_t complete = static_cast<size_t>(static_cast<const char*>(last_newline) - data.data()) + 1;
  size_t from = 0;
  if (!carry_.empty()) {  // the first newline completes the carried line
    size_t first_newline = data.find('\n');
    if (carry_.size() < kMaxCarry) {
      carry_.append(data.substr(0, first_newline + 1));
      FindHits(carry_, carry_offset_, chunk);
    } else {
      chunk->hits.push_back(carry_offset_);
    }
    from = first_newline + 1;
  }
  FindHits(data.substr(from, complete - from), start + from, chunk);
  carry_.assign(data.substr(complete));
  carry_offset_ = start + complete;
}

long ReadAheadSource::Read(char* buf, size_t n, std::string* error) {
  while (taken_.empty() || current_pos_ >= taken_.back().size) {
    if (done_) {
      if (error_.empty()) return 0;
      *error = error_;
      return -1;
    }
    {
      std::unique_lock<std::mutex> lock(mutex_);
      free_.notify_one();
      ready_.wait(lock, [this] { return !full_.empty(); });
      taken_.push_back(std::move(full_.front()));
      full_.pop_front();
      done_ = taken_.back().last;
    }
    hits_.insert(hits_.end(), taken_.back().hits.begin(), taken_.back().hits.end());
    current_pos_ = 0;
    most_held_ = std::max(most_held_, taken_.size());
    GiveBack();
  }
  const Chunk& current = taken_.back();
  size_t count = std::min(n, current.size - current_pos_);
  std::memcpy(buf, current.bytes.data() + current_pos_, count);
  current_pos_ += count;
  return static_cast<long>(count);
}

// Moves the scanner's place in the figures past those before offset; returns
// the first figure not passed, or null.
PreparedFigure* ReadAheadSource::Pass(uint64_t offset) {
  for (Chunk& chunk : taken_) {
    size_t& i = chunk.scan_cursor;
    while (i < chunk.figure_count && chunk.figures[i].offset < offset) ++i;
    if (i < chunk.figure_count) return &chunk.figures[i];
  }
  return nullptr;
}

// Gives back the chunks read whose figures were all passed (or that had none);
// the chunk being read stays. Also called as chunks are read: a scanner deep in
// one long line calls neither Find nor PreparedAt.
void ReadAheadSource::GiveBack() {
  for (size_t k = 0; k + 1 < taken_.size();) {
    if (taken_[k].scan_cursor < taken_[k].figure_count) {
      ++k;
      continue;
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      spare_.push_back(std::move(taken_[k]));
    }
    taken_.erase(taken_.begin() + static_cast<long>(k));
  }
}

const PreparedFigure* ReadAheadSource::PreparedAt(uint64_t offset) {
  Pass(offset);
  GiveBack();
  const PreparedFigure* next = Pass(offset);  // again: erasing from a deque may move the chunks left
  return next && next->offset == offset ? next : nullptr;
}

size_t ReadAheadSource::Find(std::string_view text, uint64_t offset) {
  Pass(offset);
  GiveBack();
  while (!hits_.empty() && hits_.front() < offset) hits_.pop_front();
  if (hits_.empty() || hits_.front() >= offset + text.size()) return std::string_view::npos;
  return static_cast<size_t>(hits_.front() - offset);
}

bool ReadAheadPays(std::string_view first_bytes, std::string_view decoded_head, const Prefilter& prefilter) {
  size_t common = std::min(first_bytes.size(), decoded_head.size());
  if (first_bytes.substr(0, common) != decoded_head.substr(0, common)) return true;  // decompressed
  size_t lines = 0;
  for (std::string_view rest = first_bytes; lines < kReadAheadLines; ++lines) {
    size_t hit = prefilter.Find(rest);
    if (hit == std::string_view::npos) break;
    size_t end = rest.find('\n', hit);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
  }
  return lines >= kReadAheadLines;
}

}  // namespace oomlens
