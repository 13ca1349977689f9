#include "core/rules/literal_search.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

#include "core/input/simd.h"
#include "core/model/ascii.h"

namespace oomlens {
namespace {

constexpr int kMaxK = 5;
constexpr int kBucketBits = 12;
constexpr size_t kBuckets = size_t{1} << kBucketBits;
constexpr size_t kWindow = 32;      // positions tested at once (AVX2)
constexpr size_t kWideWindow = 64;  // (AVX-512)

// The first pass a search runs.
enum class LiteralSearchSimd { kNone, kAvx2, kAvx512, kAvx512Vbmi };

// Rough share of each byte in training logs (digits, lower case and spaces
// dominate; upper case and brackets are rarer). Only the order matters: it
// steers fingerprints towards rare bytes.
double ByteWeightOf(unsigned char c) {
  if (c == ' ') return 0.15;
  if (c >= '0' && c <= '9') return 0.03;
  if (c >= 'a' && c <= 'z') {
    if (c == 'e') return 0.05;
    if (std::strchr("taoinsr", c)) return 0.035;
    if (std::strchr("lcdumhp", c)) return 0.02;
    if (std::strchr("xjqz", c)) return 0.002;
    return 0.01;
  }
  if (c >= 'A' && c <= 'Z') return std::strchr("EITSORAN", c) ? 0.006 : 0.004;
  if (std::strchr(".:-/=,_", c)) return 0.015;
  if (c == '\t') return 0.005;
  if (std::strchr("[]()'\"{}%|#", c)) return 0.004;
  return 0.002;
}

// The same, looked up (the chooser asks for a weight a hundred thousand times at
// start-up): a table made before main, so a lookup is one load.
const std::array<double, 256> kByteWeights = [] {
  std::array<double, 256> table{};
  for (int b = 0; b < 256; ++b) table[b] = ByteWeightOf(static_cast<unsigned char>(b));
  return table;
}();

inline double ByteWeight(unsigned char c) { return kByteWeights[c]; }

uint32_t Hash(uint64_t key) {
  return static_cast<uint32_t>((key * 0x9E3779B97F4A7C15ull) >> (64 - kBucketBits));
}

uint64_t KeyAt(const unsigned char* p, int k) {
  uint64_t key = 0;
  for (int j = 0; j < k; ++j) key |= static_cast<uint64_t>(p[j]) << (8 * j);
  return key;
}

// The same where 8 bytes can be read from p: one load (a candidate is checked for
// every few dozen bytes of a log full of near misses).
uint64_t KeyAt(const unsigned char* p, int k, size_t readable) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  if (readable >= sizeof(uint64_t)) {
    uint64_t word;
    std::memcpy(&word, p, sizeof word);
    return word & ((uint64_t{1} << (8 * k)) - 1);  // k <= kMaxK < 8
  }
#endif
  return KeyAt(p, k);
}

bool Usable(const std::string& literal, size_t offset, int k) {
  for (int j = 0; j < k; ++j)
    if (static_cast<unsigned char>(literal[offset + j]) >= 0x80) return false;
  return true;
}

// How often a fingerprint itself turns up in log text, roughly: the product of
// its bytes' weights, raised for each lower-case letter that follows another
// (inside a word: "vice" of "device" is common, "ice:" far less).
double FingerprintWeight(std::string_view fingerprint) {
  constexpr double kInsideWord = 15;
  auto lower = [](char c) { return c >= 'a' && c <= 'z'; };
  double weight = 1;
  for (size_t j = 0; j < fingerprint.size(); ++j) {
    weight *= ByteWeight(static_cast<unsigned char>(fingerprint[j]));
    if (j > 0 && lower(fingerprint[j - 1]) && lower(fingerprint[j])) weight *= kInsideWord;
  }
  return weight;
}

// The bytes fingerprints hold at each place, with how many hold each, and each
// place's set weight (the share of log bytes it lets through).
struct PlaceSets {
  std::array<std::array<int, 256>, kMaxK> users{};
  std::array<double, kMaxK> weight{};

  void Count(int j, unsigned char c, int delta) {
    bool was_member = users[j][c] > 0;
    users[j][c] += delta;
    if (was_member != (users[j][c] > 0)) weight[j] += was_member ? -ByteWeight(c) : ByteWeight(c);
  }
  // Place j's set weight once c is in it.
  double WeightWith(int j, unsigned char c) const {
    return weight[j] + (users[j][c] > 0 ? 0 : ByteWeight(c));
  }
};

// Picks each literal's fingerprint offset for the least work per byte searched:
// positions the first pass lets through (the product of the places' byte-set
// weights, about 3 ns each) plus exact fingerprints that are not the literal
// (about 10 ns each to compare). A few rounds of choosing, literal by literal,
// the offset that keeps that lowest.
class FingerprintChooser {
 public:
  FingerprintChooser(const std::vector<std::string>& literals, int k) : literals_(literals), k_(k) {
    verify_cost_.resize(literals.size());  // the same whatever the others pick: weighed once
    for (size_t i = 0; i < literals.size(); ++i) {
      verify_cost_[i].reserve(literals[i].size() + 1 - static_cast<size_t>(k_));  // k_ <= every size
      for (size_t offset = 0; offset + static_cast<size_t>(k_) <= literals[i].size(); ++offset) {
        std::string_view fingerprint = std::string_view(literals[i]).substr(offset, static_cast<size_t>(k_));
        verify_cost_[i].push_back(
            Usable(literals[i], offset, k_) ? kVerifyCost * FingerprintWeight(fingerprint) : kUnusable);
      }
    }
  }

  // Offsets, or an empty vector when a literal has no usable one.
  std::vector<size_t> Choose() {
    std::vector<size_t> offsets(literals_.size(), kNone);
    for (int round = 0; round < 3; ++round) {
      for (size_t i = 0; i < literals_.size(); ++i) {
        if (offsets[i] != kNone) Count(i, offsets[i], -1);
        offsets[i] = Best(i);
        if (offsets[i] == kNone) return {};
        Count(i, offsets[i], +1);
      }
    }
    return offsets;
  }

 private:
  static constexpr size_t kNone = std::numeric_limits<size_t>::max();
  static constexpr double kCandidateCost = 3, kVerifyCost = 10, kUnusable = -1;

  void Count(size_t literal, size_t offset, int delta) {
    for (int j = 0; j < k_; ++j)
      sets_.Count(j, static_cast<unsigned char>(literals_[literal][offset + j]), delta);
  }
  // The work per byte once the literal's fingerprint at offset joins (the other
  // literals' own fingerprint weights are the same whatever this one picks).
  double Cost(size_t literal, size_t offset) const {
    double product = 1;
    for (int j = 0; j < k_; ++j) {
      product *= sets_.WeightWith(j, static_cast<unsigned char>(literals_[literal][offset + j]));
    }
    return kCandidateCost * product + verify_cost_[literal][offset];
  }
  size_t Best(size_t literal) const {
    size_t best = kNone;
    double best_cost = 0;
    for (size_t offset = 0; offset < verify_cost_[literal].size(); ++offset) {
      double verify = verify_cost_[literal][offset];
      if (verify == kUnusable || (best != kNone && verify >= best_cost)) continue;  // cost >= verify
      double cost = Cost(literal, offset);
      if (best == kNone || cost < best_cost) {
        best = offset;
        best_cost = cost;
      }
    }
    return best;
  }

  const std::vector<std::string>& literals_;
  int k_;
  std::vector<std::vector<double>> verify_cost_;  // by literal and offset: exact fingerprints not the literal
  PlaceSets sets_;                                // of the fingerprints chosen so far
};

// Splits the fingerprints into kGroups groups whose byte sets per place stay
// small, so that a position rarely has every place's byte in one group's set:
// fingerprint by fingerprint, the group where it adds the least to the sum over
// groups of the product of the places' set weights; a few rounds.
class FingerprintGrouper {
 public:
  static constexpr int kGroups = 8;
  FingerprintGrouper(const std::vector<uint64_t>& keys, int k) : keys_(keys), k_(k) {}

  std::vector<int> Group() {
    std::vector<int> group(keys_.size(), -1);
    for (int round = 0; round < 3; ++round) {
      for (size_t i = 0; i < keys_.size(); ++i) {
        if (group[i] >= 0) Count(i, group[i], -1);
        group[i] = Best(i);
        Count(i, group[i], +1);
      }
    }
    return group;
  }

 private:
  unsigned char ByteOf(size_t i, int j) const { return static_cast<unsigned char>(keys_[i] >> (8 * j)); }
  void Count(size_t i, int g, int delta) {
    for (int j = 0; j < k_; ++j) sets_[g].Count(j, ByteOf(i, j), delta);
  }
  // How much group g's pass rate grows when fingerprint i joins it.
  double Growth(size_t i, int g) const {
    double before = 1, after = 1;
    for (int j = 0; j < k_; ++j) {
      before *= sets_[g].weight[j];
      after *= sets_[g].WeightWith(j, ByteOf(i, j));
    }
    return after - before;
  }
  int Best(size_t i) const {
    std::array<double, kGroups> growth;
    for (int g = 0; g < kGroups; ++g) growth[g] = Growth(i, g);
    int best = 0;
    for (int g = 1; g < kGroups; ++g)
      if (growth[g] < growth[best]) best = g;
    return best;
  }

  const std::vector<uint64_t>& keys_;
  int k_;
  std::array<PlaceSets, kGroups> sets_{};
};

}  // namespace

// Byte sets per fingerprint place, in three forms: a table per place for the
// byte loop; for AVX2 and AVX-512BW a 16-byte table per place indexed by a
// byte's low nibble whose bits say which high nibbles (0-7: ASCII) complete a
// member; for VBMI the sets of eight groups of fingerprints.
struct LiteralSearch::Tables {
  std::array<std::array<bool, 256>, kMaxK> member{};
  alignas(16) std::array<std::array<uint8_t, 16>, kMaxK> low_nibble{};
  // For AVX-512 VBMI, per place and ASCII byte: bit b set when a fingerprint of
  // group b holds the byte there (a position passes when one group has all its
  // places' bytes: eight narrow sets let far fewer through than one wide set).
  alignas(64) std::array<std::array<uint8_t, 128>, kMaxK> group_bits{};
  LiteralSearchSimd simd = LiteralSearchSimd::kNone;
};

namespace {

#ifdef OOMLENS_HAVE_AVX2_PATH
// The newlines a first pass saw on its way (so the text the fast path skips is
// not read again to count them): those of the windows it passed over are added
// to `passed`; those of the window it stopped at are in `in_stop_window`, for
// the caller to add if it goes on past that window.
struct SeenNewlines {
  size_t passed = 0;
  size_t in_stop_window = 0;
};

// From window start `from` on, in steps of 32, the first window (start <= last)
// holding a candidate position: returns its start and sets *mask (bit i:
// position start + i). When none does, *mask is 0 and the result is the first
// window start not tested.
template <int K>
__attribute__((target("avx2,popcnt"))) size_t NextWindowAvx2(const uint8_t (*low_nibble)[16],
                                                             const unsigned char* p, size_t from, size_t last,
                                                             uint32_t* mask, SeenNewlines* seen) {
  const __m256i newline = _mm256_set1_epi8('\n');
  const __m256i nibble = _mm256_set1_epi8(0x0f);
  const __m256i zero = _mm256_setzero_si256();
  const __m256i high_bit = _mm256_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4, 8,
                                            16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0);
  __m256i tables[K];
#pragma GCC unroll 5
  for (int j = 0; j < K; ++j)
    tables[j] = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(low_nibble[j])));
  size_t w = from, count = 0;
  for (; w <= last; w += kWindow) {
    __m256i miss = zero;
#pragma GCC unroll 5
    for (int j = 0; j < K; ++j) {
      __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + w + j));
      __m256i rows = _mm256_shuffle_epi8(tables[j], _mm256_and_si256(x, nibble));
      __m256i row = _mm256_shuffle_epi8(high_bit, _mm256_and_si256(_mm256_srli_epi16(x, 4), nibble));
      miss = _mm256_or_si256(miss, _mm256_cmpeq_epi8(_mm256_and_si256(rows, row), zero));
    }
    uint32_t found = ~static_cast<uint32_t>(_mm256_movemask_epi8(miss));
    __m256i first = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + w));  // place 0's load again
    size_t here = static_cast<size_t>(
        __builtin_popcount(static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(first, newline)))));
    if (found != 0) {
      *mask = found;
      seen->passed += count;
      seen->in_stop_window = here;
      return w;
    }
    count += here;
  }
  *mask = 0;
  seen->passed += count;
  return w;
}

// The same 64 positions at a time: AVX-512BW tests a place's bytes straight
// into a mask register, so a place costs seven instructions for 64 positions
// where AVX2 spends nine for 32.
template <int K>
__attribute__((target("avx512f,avx512bw,popcnt"))) size_t NextWindowAvx512(const uint8_t (*low_nibble)[16],
                                                                           const unsigned char* p,
                                                                           size_t from, size_t last,
                                                                           uint64_t* mask,
                                                                           SeenNewlines* seen) {
  const __m512i newline = _mm512_set1_epi8('\n');
  const __m512i nibble = _mm512_set1_epi8(0x0f);
  // (maskz_: GCC 12 warns of the unmasked broadcast's undefined source)
  const __mmask16 all = 0xffff;
  const __m512i high_bit =
      _mm512_maskz_broadcast_i32x4(all, _mm_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 0, 0, 0, 0, 0, 0, 0, 0));
  __m512i tables[K];
#pragma GCC unroll 5
  for (int j = 0; j < K; ++j)
    tables[j] =
        _mm512_maskz_broadcast_i32x4(all, _mm_loadu_si128(reinterpret_cast<const __m128i*>(low_nibble[j])));
  size_t w = from, count = 0;
  for (; w <= last; w += kWideWindow) {
    __mmask64 place[K];  // tested apart and combined after: a chain of masked tests waits on each
#pragma GCC unroll 5
    for (int j = 0; j < K; ++j) {
      __m512i x = _mm512_loadu_si512(p + w + j);
      __m512i rows = _mm512_shuffle_epi8(tables[j], _mm512_and_si512(x, nibble));
      __m512i row = _mm512_shuffle_epi8(high_bit, _mm512_and_si512(_mm512_srli_epi16(x, 4), nibble));
      place[j] = _mm512_test_epi8_mask(rows, row);
    }
    __mmask64 pass = place[0];
    for (int j = 1; j < K; ++j) pass &= place[j];
    size_t here =
        static_cast<size_t>(__builtin_popcountll(_mm512_cmpeq_epi8_mask(_mm512_loadu_si512(p + w), newline)));
    if (pass != 0) {
      *mask = pass;
      seen->passed += count;
      seen->in_stop_window = here;
      return w;
    }
    count += here;
  }
  *mask = 0;
  seen->passed += count;
  return w;
}

// The same with VBMI: a byte's groups at a place in one 128-entry lookup
// (vpermi2b), the groups of the places ANDed. The lookup reads seven bits, so a
// byte above 0x7f, which no fingerprint holds, finds its ASCII alias's groups:
// such bytes are taken out only in a window that passes (testing them in every
// window was a fifth of the pass's instructions, and logs hold few).
template <int K>
__attribute__((target("avx512f,avx512bw,avx512vbmi,popcnt"))) size_t NextWindowVbmi(
    const uint8_t (*group_bits)[128], const unsigned char* p, size_t from, size_t last, uint64_t* mask,
    SeenNewlines* seen) {
  const __m512i newline = _mm512_set1_epi8('\n');
  __m512i low[K], high[K];
#pragma GCC unroll 5
  for (int j = 0; j < K; ++j) {
    low[j] = _mm512_loadu_si512(group_bits[j]);
    high[j] = _mm512_loadu_si512(group_bits[j] + 64);
  }
  size_t w = from, count = 0;
  for (; w <= last; w += kWideWindow) {
    __m512i first = _mm512_loadu_si512(p + w);
    __mmask64 breaks = _mm512_cmpeq_epi8_mask(first, newline);
    __m512i groups = _mm512_permutex2var_epi8(low[0], first, high[0]);
#pragma GCC unroll 5
    for (int j = 1; j < K; ++j)
      groups =
          _mm512_and_si512(groups, _mm512_permutex2var_epi8(low[j], _mm512_loadu_si512(p + w + j), high[j]));
    __mmask64 pass = _mm512_test_epi8_mask(groups, groups);
    if (pass != 0) {
      __m512i bytes = first;  // the places' bytes ORed: a sign bit marks a byte above 0x7f
#pragma GCC unroll 5
      for (int j = 1; j < K; ++j) bytes = _mm512_or_si512(bytes, _mm512_loadu_si512(p + w + j));
      pass &= ~_mm512_movepi8_mask(bytes);
      if (pass != 0) {
        *mask = pass;
        seen->passed += count;
        seen->in_stop_window = static_cast<size_t>(__builtin_popcountll(breaks));
        return w;
      }
    }
    count += static_cast<size_t>(__builtin_popcountll(breaks));
  }
  *mask = 0;
  seen->passed += count;
  return w;
}

// The instances for fingerprints of k bytes.
size_t NextWindow(int k, LiteralSearchSimd simd, const uint8_t (*low_nibble)[16],
                  const uint8_t (*group_bits)[128], const unsigned char* p, size_t from, size_t last,
                  uint64_t* mask, SeenNewlines* seen) {
  static_assert(kMaxK == 5, "one instance per fingerprint length");
  if (simd == LiteralSearchSimd::kAvx512Vbmi) {
    switch (k) {
      case 3: return NextWindowVbmi<3>(group_bits, p, from, last, mask, seen);
      case 4: return NextWindowVbmi<4>(group_bits, p, from, last, mask, seen);
      default: return NextWindowVbmi<5>(group_bits, p, from, last, mask, seen);
    }
  }
  if (simd == LiteralSearchSimd::kAvx512) {
    switch (k) {
      case 3: return NextWindowAvx512<3>(low_nibble, p, from, last, mask, seen);
      case 4: return NextWindowAvx512<4>(low_nibble, p, from, last, mask, seen);
      default: return NextWindowAvx512<5>(low_nibble, p, from, last, mask, seen);
    }
  }
  uint32_t narrow = 0;
  size_t at = from;
  switch (k) {
    case 3: at = NextWindowAvx2<3>(low_nibble, p, from, last, &narrow, seen); break;
    case 4: at = NextWindowAvx2<4>(low_nibble, p, from, last, &narrow, seen); break;
    default: at = NextWindowAvx2<5>(low_nibble, p, from, last, &narrow, seen); break;
  }
  *mask = narrow;
  return at;
}
#endif

}  // namespace

LiteralSearch::~LiteralSearch() = default;

std::unique_ptr<LiteralSearch> LiteralSearch::Build(const std::vector<std::string>& literals,
                                                    FirstPass first_pass) {
  if (literals.empty()) return nullptr;
  size_t shortest = std::numeric_limits<size_t>::max();
  for (const auto& literal : literals) {
    if (literal.find('\n') != std::string::npos) return nullptr;
    shortest = std::min(shortest, literal.size());
  }
  if (shortest < 3 || literals.size() > std::numeric_limits<uint32_t>::max()) return nullptr;
  int k = static_cast<int>(std::min<size_t>(kMaxK, shortest));
  std::vector<size_t> offsets = FingerprintChooser(literals, k).Choose();
  if (offsets.empty()) return nullptr;

  std::unique_ptr<LiteralSearch> search(new LiteralSearch());
  search->literals_ = literals;
  search->k_ = k;
  search->tables_ = std::make_unique<Tables>();
  std::vector<Entry> entries;
  std::vector<uint64_t> keys;
  entries.reserve(literals.size());
  keys.reserve(literals.size());
  for (size_t i = 0; i < literals.size(); ++i) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(literals[i].data()) + offsets[i];
    uint64_t key = KeyAt(bytes, k);
    entries.push_back(Entry{key, static_cast<uint32_t>(i), static_cast<uint32_t>(offsets[i])});
    keys.push_back(key);
    for (int j = 0; j < k; ++j) {
      search->tables_->member[j][bytes[j]] = true;
      search->tables_->low_nibble[j][bytes[j] & 0x0f] |= static_cast<uint8_t>(1u << (bytes[j] >> 4));
    }
  }
  std::vector<int> group = FingerprintGrouper(keys, k).Group();
  for (size_t i = 0; i < keys.size(); ++i)
    for (int j = 0; j < k; ++j)  // fingerprints are ASCII (Usable)
      search->tables_->group_bits[j][(keys[i] >> (8 * j)) & 0x7f] |= static_cast<uint8_t>(1u << group[i]);
  search->Index(entries);
  using Simd = LiteralSearchSimd;
  Simd& simd = search->tables_->simd;
  if (first_pass == FirstPass::kFastest && CpuHasAvx512Vbmi()) simd = Simd::kAvx512Vbmi;
  else if ((first_pass == FirstPass::kFastest || first_pass == FirstPass::kAvx512Bw) && CpuHasAvx512Bw())
    simd = Simd::kAvx512;
  else if (first_pass != FirstPass::kPortable && CpuHasAvx2()) simd = Simd::kAvx2;
  return search;
}

// entries_ grouped by hash bucket, each bucket in the literals' order (the order
// Verify reports them in), and where each bucket starts: a counting sort (a
// vector per bucket was a tenth of start-up's index).
void LiteralSearch::Index(const std::vector<Entry>& entries) {
  bucket_start_.assign(kBuckets + 1, 0);
  for (const Entry& e : entries) ++bucket_start_[Hash(e.key) + 1];
  for (size_t b = 0; b < kBuckets; ++b) bucket_start_[b + 1] += bucket_start_[b];
  std::vector<uint32_t> next(bucket_start_.begin(), bucket_start_.end() - 1);
  entries_.resize(entries.size());
  for (const Entry& e : entries) entries_[next[Hash(e.key)]++] = e;
}

template <typename OnMatch>
bool LiteralSearch::Verify(std::string_view text, size_t pos, OnMatch& on_match) const {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  uint64_t key = KeyAt(p + pos, k_, text.size() - pos);
  uint32_t bucket = Hash(key);
  for (uint32_t e = bucket_start_[bucket]; e < bucket_start_[bucket + 1]; ++e) {
    const Entry& entry = entries_[e];
    if (entry.key != key || pos < entry.offset) continue;
    size_t start = pos - entry.offset;
    const std::string& literal = literals_[entry.literal];
    if (start + literal.size() > text.size() ||
        !SameBytes(text.data() + start, literal.data(), literal.size()))
      continue;
    if (!on_match(entry.literal, start)) return false;
  }
  return true;
}

template <typename OnMatch>
bool LiteralSearch::Scan(std::string_view text, OnMatch on_match,
                         [[maybe_unused]] NewlineTally* counted) const {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  const size_t k = static_cast<size_t>(k_);
  if (n < k) return true;
  size_t pos = 0;
#ifdef OOMLENS_HAVE_AVX2_PATH
  const LiteralSearchSimd simd = tables_->simd;
  const size_t window = simd == LiteralSearchSimd::kAvx2 ? kWindow : kWideWindow;
  const auto* low = reinterpret_cast<const uint8_t(*)[16]>(tables_->low_nibble.data());
  const auto* groups = reinterpret_cast<const uint8_t(*)[128]>(tables_->group_bits.data());
  if (simd != LiteralSearchSimd::kNone && n >= k - 1 + window) {
    const size_t last = n - (k - 1) - window;  // last window start whose loads stay inside text
    SeenNewlines seen;                         // passed: in text[0, pos)
    while (pos <= last) {
      uint64_t mask = 0;
      pos = NextWindow(k_, simd, low, groups, p, pos, last, &mask, &seen);
      if (mask == 0) break;
      for (; mask != 0; mask &= mask - 1) {
        if (Verify(text, pos + static_cast<size_t>(__builtin_ctzll(mask)), on_match)) continue;
        if (counted) *counted = NewlineTally{pos, seen.passed};
        return false;
      }
      seen.passed += seen.in_stop_window;
      pos += window;
    }
    if (counted) *counted = NewlineTally{pos, seen.passed};
  }
  if (simd != LiteralSearchSimd::kNone && pos + k <= n) {
    // The rest, shorter than a window and its reach (all of a short line, which a
    // byte loop took ten instructions a byte for): one window over a zero-padded
    // copy, without the positions whose fingerprint would reach the padding.
    unsigned char tail[kWideWindow + kMaxK] = {};
    const size_t rest = n - pos, positions = rest - k + 1;  // rest < window + k - 1
    std::memcpy(tail, p + pos, rest);
    uint64_t mask = 0;
    SeenNewlines uncounted;  // the caller counts the rest
    NextWindow(k_, simd, low, groups, tail, 0, 0, &mask, &uncounted);
    mask &= (uint64_t{1} << positions) - 1;  // positions < window <= 64
    for (; mask != 0; mask &= mask - 1) {
      if (!Verify(text, pos + static_cast<size_t>(__builtin_ctzll(mask)), on_match)) return false;
    }
    return true;
  }
#endif
  const auto& member = tables_->member;
  for (; pos + k <= n; ++pos) {
    size_t j = 0;
    while (j < k && member[j][p[pos + j]]) ++j;
    if (j == k && !Verify(text, pos, on_match)) return false;
  }
  return true;
}

size_t LiteralSearch::FindInFirstLine(std::string_view text, NewlineTally* counted) const {
  // The first exact fingerprint in text order belongs to a literal of the first
  // line holding one: a literal in an earlier line would have its fingerprint,
  // which lies inside it, earlier.
  size_t found = std::string_view::npos;
  if (counted) *counted = NewlineTally{};
  Scan(
      text,
      [&found](uint32_t, size_t start) {
        found = start;
        return false;
      },
      counted);
  return found;
}

void LiteralSearch::ForEach(std::string_view text, const std::function<bool(size_t)>& found) const {
  Scan(text, [&found](uint32_t literal, size_t) { return found(literal); });
}

void LiteralSearch::Collect(std::string_view text, std::vector<size_t>* found) const {
  found->clear();
  Scan(text, [found](uint32_t literal, size_t) {
    found->push_back(literal);
    return true;
  });
}

}  // namespace oomlens
