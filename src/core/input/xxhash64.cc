#include "core/input/xxhash64.h"

#include <cstring>

namespace oomlens {
namespace {

constexpr uint64_t kP1 = 0x9E3779B185EBCA87ULL, kP2 = 0xC2B2AE3D27D4EB4FULL, kP3 = 0x165667B19E3779F9ULL,
                   kP4 = 0x85EBCA77C2B2AE63ULL, kP5 = 0x27D4EB2F165667C5ULL;

uint64_t Rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

uint64_t Read64(const unsigned char* p) {  // little-endian, as the algorithm reads
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint64_t v;
  std::memcpy(&v, p, sizeof v);  // one load
  return v;
#else
  uint64_t v = 0;
  for (int k = 7; k >= 0; --k) v = (v << 8) | p[k];
  return v;
#endif
}

uint32_t Read32(const unsigned char* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 |
         static_cast<uint32_t>(p[3]) << 24;
}

uint64_t Round(uint64_t acc, uint64_t input) { return Rotl(acc + input * kP2, 31) * kP1; }

uint64_t MergeRound(uint64_t hash, uint64_t acc) { return (hash ^ Round(0, acc)) * kP1 + kP4; }

}  // namespace

void Xxh64::Reset() {
  acc_[0] = kP1 + kP2;
  acc_[1] = kP2;
  acc_[2] = 0;
  acc_[3] = 0 - kP1;
  buffered_ = 0;
  total_ = 0;
}

void Xxh64::Update(const char* data, size_t size) {
  const auto* p = reinterpret_cast<const unsigned char*>(data);
  total_ += size;
  if (buffered_ + size < 32) {
    std::memcpy(buffer_ + buffered_, p, size);
    buffered_ += size;
    return;
  }
  if (buffered_ > 0) {
    size_t fill = 32 - buffered_;
    std::memcpy(buffer_ + buffered_, p, fill);
    for (int k = 0; k < 4; ++k) acc_[k] = Round(acc_[k], Read64(buffer_ + 8 * k));
    p += fill, size -= fill, buffered_ = 0;
  }
  // The four lanes in locals: stores to acc_ through a byte pointer could alias
  // the input, so the compiler would keep them in memory (2 GB/s; 10 like this).
  uint64_t a0 = acc_[0], a1 = acc_[1], a2 = acc_[2], a3 = acc_[3];
  for (; size >= 32; p += 32, size -= 32) {
    a0 = Round(a0, Read64(p));
    a1 = Round(a1, Read64(p + 8));
    a2 = Round(a2, Read64(p + 16));
    a3 = Round(a3, Read64(p + 24));
  }
  acc_[0] = a0, acc_[1] = a1, acc_[2] = a2, acc_[3] = a3;
  std::memcpy(buffer_, p, size);
  buffered_ = size;
}

uint64_t Xxh64::Digest() const {
  uint64_t h;
  if (total_ >= 32) {
    h = Rotl(acc_[0], 1) + Rotl(acc_[1], 7) + Rotl(acc_[2], 12) + Rotl(acc_[3], 18);
    for (uint64_t acc : acc_) h = MergeRound(h, acc);
  } else {
    h = kP5;  // seed 0
  }
  h += total_;
  const unsigned char* p = buffer_;
  size_t left = buffered_;
  for (; left >= 8; p += 8, left -= 8) h = Rotl(h ^ Round(0, Read64(p)), 27) * kP1 + kP4;
  if (left >= 4) {
    h = Rotl(h ^ (static_cast<uint64_t>(Read32(p)) * kP1), 23) * kP2 + kP3;
    p += 4, left -= 4;
  }
  for (; left > 0; ++p, --left) h = Rotl(h ^ (*p * kP5), 11) * kP1;
  h ^= h >> 33;
  h *= kP2;
  h ^= h >> 29;
  h *= kP3;
  h ^= h >> 32;
  return h;
}

}  // namespace oomlens
