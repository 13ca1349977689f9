// The one hash of oomlens: FNV-1a, 64 bits. Stable across runs, machines and
// builds, so incident fingerprints and the rules' version can be compared.
#ifndef OOMLENS_CORE_MODEL_HASH_H_
#define OOMLENS_CORE_MODEL_HASH_H_

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace oomlens {

class Fnv1a {
 public:
  Fnv1a& Add(std::string_view bytes) {
    for (unsigned char c : bytes) {
      value_ ^= c;
      value_ *= 1099511628211ull;
    }
    return *this;
  }
  uint64_t value() const { return value_; }
  /// The first digits (1-16) of the value in hex: "9f3a01c2".
  std::string Hex(int digits = 16) const {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(value_));
    return std::string(buf, static_cast<size_t>(digits < 1 ? 1 : digits > 16 ? 16 : digits));
  }

 private:
  uint64_t value_ = 1469598103934665603ull;
};

}  // namespace oomlens

#endif  // OOMLENS_CORE_MODEL_HASH_H_
