#include "core/input/xxhash64.h"

#include <gtest/gtest.h>
#include <zstd.h>

#include <random>
#include <string>

namespace oomlens {
namespace {

uint64_t HashOf(const std::string& text) {
  Xxh64 hash;
  hash.Update(text.data(), text.size());
  return hash.Digest();
}

// The published XXH64 values (seed 0) of short inputs, which take the paths
// without the four 32-byte lanes.
TEST(Xxh64, GivesThePublishedValuesOfShortInputs) {
  EXPECT_EQ(HashOf(""), 0xEF46DB3751D8E999ULL);
  EXPECT_EQ(HashOf("a"), 0xD24EC4F1A98C6E5BULL);
  EXPECT_EQ(HashOf("abc"), 0x44BC2CF5AD770999ULL);
}

// libzstd, another implementation, writes the low 32 bits of XXH64 of a frame's
// content as its last four bytes: the two agree at every length up to 300 bytes
// (every lane and tail path) and on longer inputs.
TEST(Xxh64, AgreesWithTheChecksumsLibzstdWrites) {
  std::mt19937 rng(11);
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ASSERT_NE(cctx, nullptr);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  std::vector<size_t> lengths;
  for (size_t n = 0; n <= 300; ++n) lengths.push_back(n);
  for (size_t n : {4096, 65537, 1 << 20}) lengths.push_back(n);
  for (size_t n : lengths) {
    std::string text(n, '\0');
    for (auto& c : text) c = static_cast<char>(rng());
    std::string frame(ZSTD_compressBound(n), '\0');
    size_t size = ZSTD_compress2(cctx, frame.data(), frame.size(), text.data(), text.size());
    ASSERT_FALSE(ZSTD_isError(size)) << n;
    const auto* tail = reinterpret_cast<const unsigned char*>(frame.data()) + size - 4;
    uint32_t written = tail[0] | tail[1] << 8 | tail[2] << 16 | static_cast<uint32_t>(tail[3]) << 24;
    EXPECT_EQ(static_cast<uint32_t>(HashOf(text)), written) << n << " bytes";
  }
  ZSTD_freeCCtx(cctx);
}

// Fed in pieces of any size, the digest is the one of the whole.
TEST(Xxh64, GivesTheSameDigestWhateverThePieces) {
  std::mt19937 rng(5);
  for (int round = 0; round < 200; ++round) {
    std::string text(rng() % 2000, '\0');
    for (auto& c : text) c = static_cast<char>(rng());
    Xxh64 pieces;
    for (size_t at = 0; at < text.size();) {
      size_t piece = std::min<size_t>(text.size() - at, rng() % 70);
      pieces.Update(text.data() + at, piece);
      at += piece;
    }
    EXPECT_EQ(pieces.Digest(), HashOf(text)) << text.size() << " bytes";
  }
}

}  // namespace
}  // namespace oomlens
