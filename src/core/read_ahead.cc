#include "core/read_ahead.h"

#include <algorithm>
#include <cstring>

namespace oomlens {
namespace {

// A line longer than this is handed to the scanner as a candidate whole (it
// reads long lines cut anyway), so the read-ahead never holds more of one line.
constexpr size_t kMaxCarry = 1 << 20;

}  // namespace

ReadAheadSource::ReadAheadSource(ByteSource* inner, const Prefilter* prefilter)
    : inner_(inner), prefilter_(prefilter), thread_([this] { Produce(); }) {}

ReadAheadSource::~ReadAheadSource() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
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
    }
    chunk.bytes.resize(kChunk);
    std::string error;
    long got = inner_->Read(chunk.bytes.data(), kChunk, &error);
    chunk.size = got > 0 ? static_cast<size_t>(got) : 0;
    chunk.last = got <= 0;
    chunk.hits.clear();
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

void ReadAheadSource::FindHits(std::string_view text, uint64_t offset, std::vector<uint64_t>* hits) const {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t hit = prefilter_->Find(text.substr(pos));
    if (hit == std::string_view::npos) return;
    hits->push_back(offset + pos + hit);
    size_t newline = text.find('\n', pos + hit);
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
    if (!carry_.empty()) FindHits(carry_, carry_offset_, &chunk->hits);
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
      FindHits(carry_, carry_offset_, &chunk->hits);
    } else {
      chunk->hits.push_back(carry_offset_);
    }
    from = first_newline + 1;
  }
  FindHits(data.substr(from, complete - from), start + from, &chunk->hits);
  carry_.assign(data.substr(complete));
  carry_offset_ = start + complete;
}

long ReadAheadSource::Read(char* buf, size_t n, std::string* error) {
  while (current_pos_ >= current_.size) {
    if (done_) {
      if (error_.empty()) return 0;
      *error = error_;
      return -1;
    }
    {
      std::unique_lock<std::mutex> lock(mutex_);
      if (!current_.bytes.empty()) spare_.push_back(std::move(current_));
      free_.notify_one();
      ready_.wait(lock, [this] { return !full_.empty(); });
      current_ = std::move(full_.front());
      full_.pop_front();
      done_ = current_.last;
    }
    hits_.insert(hits_.end(), current_.hits.begin(), current_.hits.end());
    current_pos_ = 0;
  }
  size_t count = std::min(n, current_.size - current_pos_);
  std::memcpy(buf, current_.bytes.data() + current_pos_, count);
  current_pos_ += count;
  return static_cast<long>(count);
}

size_t ReadAheadSource::Find(std::string_view text, uint64_t offset) {
  while (!hits_.empty() && hits_.front() < offset) hits_.pop_front();
  if (hits_.empty() || hits_.front() >= offset + text.size()) return std::string_view::npos;
  return static_cast<size_t>(hits_.front() - offset);
}

}  // namespace oomlens
