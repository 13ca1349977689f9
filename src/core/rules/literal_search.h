// Multi-literal search for the fast path: finds the signatures' literals in a
// buffer of many lines at several GB/s, without a regex engine.
//
// Each literal is represented by a fingerprint: K consecutive bytes of it (K is
// the shortest literal's length, at most 5), at the offset that makes the
// fingerprints together rarest in log text. A first pass tests 64 or 32
// positions at a time (AVX-512 or AVX2 where the CPU has them, a byte loop
// otherwise): a position is a candidate when its K bytes each belong to the set
// of bytes fingerprints hold at that place (with VBMI, the set of one of eight
// groups of fingerprints). Candidates are then looked up in a
// small hash table of the exact fingerprints, and only an exact fingerprint
// leads to comparing the literal.
#ifndef OOMLENS_CORE_RULES_LITERAL_SEARCH_H_
#define OOMLENS_CORE_RULES_LITERAL_SEARCH_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/input/count_newlines.h"

namespace oomlens {

class LiteralSearch {
 public:
  /// Null when the literals cannot be searched this way (one is shorter than 3
  /// bytes, holds a newline, or has no run of 3 ASCII bytes): the caller then
  /// uses a regex.
  /// kFastest: AVX-512 VBMI, else AVX-512BW, else AVX2, else the byte loop, as
  /// the CPU allows; the others cap it there (tests compare every pass).
  enum class FirstPass { kFastest, kAvx512Bw, kAvx2, kPortable };
  static std::unique_ptr<LiteralSearch> Build(const std::vector<std::string>& literals,
                                              FirstPass first_pass = FirstPass::kFastest);
  ~LiteralSearch();
  LiteralSearch(const LiteralSearch&) = delete;
  LiteralSearch& operator=(const LiteralSearch&) = delete;

  /// Start of a literal that lies in the first line of text holding any, or npos.
  /// (Not always the leftmost literal of that line: callers want the line.)
  /// *counted, when given, says how many newlines the text holds up to where the
  /// search stopped counting (a window before the hit; before the last few bytes).
  size_t FindInFirstLine(std::string_view text, NewlineTally* counted = nullptr) const;
  /// Calls found(literal index) for each occurrence in text (a literal can be
  /// reported more than once). Stops early when found returns false.
  void ForEach(std::string_view text, const std::function<bool(size_t)>& found) const;
  /// The same into *found (cleared first), without a call through std::function per
  /// occurrence: what a line's literals are, asked of every candidate line.
  void Collect(std::string_view text, std::vector<size_t>* found) const;

  /// Bytes in each fingerprint (3 to 5).
  int fingerprint_length() const { return k_; }

 private:
  struct Entry {
    uint64_t key;      // the fingerprint's bytes, little-endian
    uint32_t literal;  // index into literals_
    uint32_t offset;   // of the fingerprint in the literal
  };
  struct Tables;

  LiteralSearch() = default;
  void Index(const std::vector<Entry>& entries);  // fills entries_ and bucket_start_
  // Calls on_match(literal, start) for each literal occurrence, in order of
  // fingerprint position, until it returns false. Returns false when stopped.
  // Counts newlines into *counted where given (FindInFirstLine).
  template <typename OnMatch>
  bool Scan(std::string_view text, OnMatch on_match, NewlineTally* counted = nullptr) const;
  template <typename OnMatch>
  bool Verify(std::string_view text, size_t pos, OnMatch& on_match) const;

  std::vector<std::string> literals_;
  int k_ = 0;
  std::vector<Entry> entries_;          // grouped by hash bucket
  std::vector<uint32_t> bucket_start_;  // kBuckets + 1 offsets into entries_
  std::unique_ptr<Tables> tables_;
};

}  // namespace oomlens

#endif  // OOMLENS_CORE_RULES_LITERAL_SEARCH_H_
