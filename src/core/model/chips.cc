// Memory of one device of the accelerators oomlens knows by name (--chip).
#include "oomlens/chips.h"

#include <cctype>

namespace oomlens {
namespace {

constexpr int64_t kGiB = int64_t{1} << 30;

struct Chip {
  const char* name;
  int64_t gib;  // memory of one device as the runtime sees it (a TPU v2/v3 core, a chip, a GPU)
};

// Public spec figures: the HBM of one TPU device, the memory of one GPU.
constexpr Chip kChips[] = {
    {"v2", 8},       {"v3", 16},      {"v4", 32},   {"v5e", 16},     {"v5litepod", 16}, {"v5p", 95},
    {"v6e", 32},     {"tpu7x", 192},  {"v7x", 192}, {"v100-16", 16}, {"v100-32", 32},   {"v100", 32},
    {"a100-40", 40}, {"a100-80", 80}, {"a100", 80}, {"h100", 80},    {"h200", 141},     {"b200", 192},
};

}  // namespace

std::optional<int64_t> ChipCapacity(const std::string& chip) {
  std::string lower;
  for (char c : chip) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.rfind("tpu-", 0) == 0) lower = lower.substr(4);
  for (const auto& c : kChips) {
    if (lower == c.name) return c.gib * kGiB;
  }
  return std::nullopt;
}

std::string KnownChips() {
  std::string out;
  for (const auto& c : kChips) out += (out.empty() ? "" : ", ") + std::string(c.name);
  return out;
}

}  // namespace oomlens
