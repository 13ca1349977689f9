#include "oomlens/facts.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "oomlens/size.h"

namespace oomlens {
namespace {

std::vector<FactInfo> BuildRegistry() {
  using T = FactType;
  std::vector<FactInfo> r = {
      // Read from logs.
      {"program", T::kText, false, "the XLA program (executable) that failed"},
      {"memory_space", T::kText, false, "hbm, vmem, smem, host ..."},
      {"chip", T::kText, false, "accelerator generation, from the log or --chip"},
      {"requested_bytes", T::kSize, false, "the allocation or reservation that failed"},
      {"free_bytes", T::kSize, false, "free memory in total when it failed"},
      {"reserved_bytes", T::kSize, false, "memory reserved (TPU program load: 'N reserved')"},
      {"reservable_bytes", T::kSize, false, "contiguous room at the bottom of HBM for programs"},
      {"largest_free_bytes", T::kSize, false, "largest contiguous free block"},
      {"limit_bytes", T::kSize, false, "the limit the failing allocator or compiler enforced"},
      {"capacity_bytes", T::kSize, false, "the device's whole memory"},
      {"used_bytes", T::kSize, false, "memory in use (allocated) when it failed"},
      {"exceeded_by_bytes", T::kSize, false, "how far usage exceeded the limit"},
      {"top_of_memory_reserved_bytes", T::kSize, false, "HBM reserved at the top (XRT breakdown)"},
      {"available_after_request_bytes", T::kSize, false, "free minus request (negative: short)"},
      {"total_usage_bytes", T::kSize, false, "'Total hbm usage >= N'"},
      {"program_bytes", T::kSize, false, "memory the program itself needs"},
      {"arguments_bytes", T::kSize, false, "program arguments held in memory"},
      {"output_bytes", T::kSize, false, "program outputs held in memory"},
      {"hlo_temp_bytes", T::kSize, false, "temporaries of the program (activations)"},
      // Who printed the event.
      {"replica", T::kIdentity, false, "replica index"},
      {"partition", T::kIdentity, false, "partition index"},
      {"host", T::kIdentity, false, "host, worker or pod"},
      {"device", T::kIdentity, false, "device id, e.g. 0x0x0_HBM0 or device ordinal 0"},
      {"rank", T::kIdentity, false, "process rank"},
      // Derived by oomlens.
      {"shortfall_bytes", T::kSize, true, "requested - free"},
      {"largest_contiguous_bytes", T::kSize, true,
       "largest_free_bytes, or reservable_bytes for program loads"},
      {"request_to_free_ratio", T::kRatio, true, "requested / free"},
      {"request_to_capacity_ratio", T::kRatio, true, "requested / capacity"},
      {"fragmentation_ratio", T::kRatio, true, "(free - largest contiguous) / free"},
  };
  std::sort(r.begin(), r.end(), [](const FactInfo& a, const FactInfo& b) { return a.name < b.name; });
  return r;
}

}  // namespace

const std::vector<FactInfo>& FactRegistry() {
  static const std::vector<FactInfo> registry = BuildRegistry();
  return registry;
}

const FactInfo* FindFact(std::string_view name) {
  const auto& r = FactRegistry();
  auto it = std::lower_bound(r.begin(), r.end(), name,
                             [](const FactInfo& f, std::string_view n) { return f.name < n; });
  return it != r.end() && it->name == name ? &*it : nullptr;
}

bool MakeFact(const FactInfo& info, std::string_view text, FactValue* value, std::string* error) {
  value->type = info.type;
  value->text = std::string(text);
  switch (info.type) {
    case FactType::kSize: {
      auto size = ParseSize(text, error);
      if (!size) return false;
      value->integer = size->bytes;
      value->number = static_cast<double>(size->bytes);
      value->tolerance = size->tolerance;
      return true;
    }
    case FactType::kCount: {
      std::string digits(text);
      errno = 0;
      char* end = nullptr;
      long long n = std::strtoll(digits.c_str(), &end, 10);
      if (digits.empty() || *end != '\0' || errno == ERANGE) {
        *error = "'" + digits + "' is not a whole number";
        return false;
      }
      value->integer = n;
      value->number = static_cast<double>(n);
      return true;
    }
    case FactType::kRatio: {
      std::string digits(text);
      char* end = nullptr;
      value->number = std::strtod(digits.c_str(), &end);
      if (digits.empty() || *end != '\0') {
        *error = "'" + digits + "' is not a number";
        return false;
      }
      return true;
    }
    case FactType::kText:
    case FactType::kIdentity:
      return true;
  }
  return true;
}

}  // namespace oomlens
