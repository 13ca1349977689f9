// Reading ahead on a second thread: the thread reads (and decompresses) the
// input and finds the lines that hold a literal, so the scanning thread only
// recognises messages. When the scanning thread falls behind (chunks queue up),
// the thread also reads the figure lines (memory series, progress) it finds,
// which are most candidate lines of a healthy log. Memory stays bounded: a few
// chunks are in flight.
//
// The hits are the start offsets of literals, one per line that holds any, in
// input order. A line is searched once it is complete (its '\n' was read), so
// a hit is known before the scanner can skip the line it lies in.
#ifndef OOMLENS_CORE_RECOGNIZE_READ_AHEAD_H_
#define OOMLENS_CORE_RECOGNIZE_READ_AHEAD_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/input/line_reader.h"
#include "core/recognize/figure_reader.h"
#include "core/rules/prefilter.h"

namespace oomlens {

/// Which figure lines the read-ahead thread reads: the default balances the two
/// threads; tests force either side.
enum class ReadFigures { kWhenBehind, kAlways, kNever };

class ReadAheadSource : public ByteSource {
 public:
  /// Starts reading inner on its own thread. figures (used by that thread only)
  /// and its rules outlive this object. Figure lines longer than max_line are
  /// left to the scanner (which reads them cut). stop_reads, when given, is set
  /// before the thread is joined: the source under inner watches it
  /// (FdSource::StopWhen), so a quiet pipe cannot hold the thread.
  ReadAheadSource(ByteSource* inner, FigureReader* figures, ReadFigures when = ReadFigures::kWhenBehind,
                  size_t max_line = LineReader::kDefaultMaxLine, std::atomic<bool>* stop_reads = nullptr);
  ~ReadAheadSource() override;  // stops the thread
  ReadAheadSource(const ReadAheadSource&) = delete;
  ReadAheadSource& operator=(const ReadAheadSource&) = delete;

  long Read(char* buf, size_t n, std::string* error) override;
  /// A LineReader finder: the offset in text (which starts at input offset
  /// `offset` and was returned by Read) of a literal in the first line of text
  /// holding one, or npos.
  size_t Find(std::string_view text, uint64_t offset);
  /// The figure read ahead from the line at input offset `offset`, or null.
  /// The offsets given to Find and PreparedAt must not decrease from call to
  /// call (the scanner's order): figures before them are let go.
  const PreparedFigure* PreparedAt(uint64_t offset);
  /// The most chunks the scanner's side held at once (read, or kept for their figures).
  size_t most_chunks_held() const { return most_held_; }

  static constexpr size_t kChunk = 256 * 1024;
  static constexpr size_t kChunksInFlight = 4;

 private:
  struct Chunk {
    std::vector<char> bytes;  // kChunk capacity
    size_t size = 0;
    std::vector<uint64_t> hits;
    std::vector<PreparedFigure> figures;  // of hit lines, when read ahead: the first figure_count
    size_t figure_count = 0;
    size_t scan_cursor = 0;  // the scanner's place in figures (see PreparedAt)
    bool last = false;       // the end of input (or an error) follows
  };

  void Produce();
  // Finds the hits of the complete lines of text, which starts at input offset
  // `offset`, into the chunk; reads the figures among them when read_figures_.
  void FindHits(std::string_view text, uint64_t offset, Chunk* chunk);
  void SearchChunk(Chunk* chunk);
  PreparedFigure* Pass(uint64_t offset);
  void GiveBack();

  ByteSource* inner_;
  FigureReader* figures_;
  ReadFigures when_;
  size_t max_figure_line_;
  std::atomic<bool>* stop_reads_;
  bool read_figures_ = false;  // for the chunk being searched: the scanner is behind
  // The producer's own state.
  std::string carry_;          // the line the last chunk left unfinished
  uint64_t carry_offset_ = 0;  // input offset of carry_'s first byte
  uint64_t read_offset_ = 0;   // input bytes read so far
  // Shared, under mutex_.
  std::mutex mutex_;
  std::condition_variable ready_, free_;
  std::deque<Chunk> full_;    // read, searched, waiting for the scanner
  std::vector<Chunk> spare_;  // emptied by the scanner, for the producer
  std::string error_;
  bool stop_ = false;
  // The consumer's own state.
  std::deque<Chunk> taken_;  // from full_; the last is being read, older ones until their figures are passed
  size_t current_pos_ = 0;   // in taken_.back()
  size_t most_held_ = 0;
  bool done_ = false;
  std::deque<uint64_t> hits_;  // of the chunks taken, not yet passed
  std::thread thread_;
};

/// Whether reading ahead pays for an input whose first bytes (up to a MiB, as
/// stored) are first_bytes and whose text starts with decoded_head. Always for
/// compressed or re-encoded input (the text is not the bytes): decompression
/// moves to the second thread. For plain text only when the first bytes hold at
/// least kReadAheadLines candidate lines: on a quiet log handing chunks between
/// threads costs more than the search it moves (docs/performance.md).
bool ReadAheadPays(std::string_view first_bytes, std::string_view decoded_head, const Prefilter& prefilter);
constexpr size_t kReadAheadProbe = 1 << 20;
constexpr size_t kReadAheadLines = 64;

}  // namespace oomlens

#endif  // OOMLENS_CORE_RECOGNIZE_READ_AHEAD_H_
