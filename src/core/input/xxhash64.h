// XXH64, streaming: the hash a zstd frame's checksum is the low 32 bits of
// (seed 0). libzstd checks it only by holding back the frame's last block, which a
// corrupt frame then loses; oomlens hands every byte out and checks it itself.
#ifndef OOMLENS_CORE_INPUT_XXHASH64_H_
#define OOMLENS_CORE_INPUT_XXHASH64_H_

#include <cstddef>
#include <cstdint>

namespace oomlens {

class Xxh64 {
 public:
  Xxh64() { Reset(); }
  void Reset();
  void Update(const char* data, size_t size);
  uint64_t Digest() const;

 private:
  uint64_t acc_[4];
  unsigned char buffer_[32];
  size_t buffered_ = 0;
  uint64_t total_ = 0;
};

}  // namespace oomlens

#endif  // OOMLENS_CORE_INPUT_XXHASH64_H_
