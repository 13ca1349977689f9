#include "core/analyze/derive.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <optional>

#include "core/analyze/allocation_summary.h"
#include "core/analyze/history.h"
#include "core/analyze/series.h"
#include "core/model/fact_values.h"
#include "core/model/from_chars.h"
#include "oomlens/chips.h"
#include "oomlens/size.h"

namespace oomlens {
namespace {

// a - b of two sizes, when the difference is one oomlens can hold: absurd figures
// ("7.00E" against "-7.00E") give none rather than a wrapped one.
std::optional<FactValue> Difference(const FactValue& a, const FactValue& b) {
  double difference = Gap(a.integer, b.integer);
  if (!(std::fabs(difference) < 9.2e18)) return std::nullopt;
  return SizeValue(difference, a.tolerance + b.tolerance);
}

// a / b as a ratio fact, when both are present and b is not zero.
void Ratio(const Facts& facts, const char* a, const char* b, const char* name, Facts* derived) {
  const FactValue* x = FactIn(facts, a);
  const FactValue* y = FactIn(facts, b);
  if (x && y && y->integer != 0) (*derived)[name] = RatioValue(x->number / y->number);
}

// Bytes per element of a dtype as frameworks and configs print it ("bfloat16",
// "torch.float16", "float8_e4m3fn"); 0 when unknown.
int DtypeBytes(std::string dtype) {
  std::transform(dtype.begin(), dtype.end(), dtype.begin(), [](unsigned char c) { return std::tolower(c); });
  if (dtype.rfind("torch.", 0) == 0 || dtype.rfind("jnp.", 0) == 0) dtype.erase(0, dtype.find('.') + 1);
  static const std::pair<const char*, int> kSizes[] = {
      {"float", 4},   {"float32", 4}, {"f32", 4},      {"int32", 4}, {"uint32", 4}, {"s32", 4},
      {"fp32", 4},    {"double", 8},  {"float64", 8},  {"int64", 8}, {"uint64", 8}, {"half", 2},
      {"float16", 2}, {"fp16", 2},    {"bfloat16", 2}, {"bf16", 2},  {"f16", 2},    {"int16", 2},
      {"int8", 1},    {"uint8", 1},   {"bool", 1},     {"qint8", 1}, {"quint8", 1}};
  for (const auto& [name, bytes] : kSizes)
    if (dtype == name) return bytes;
  if (dtype.rfind("float8", 0) == 0 || dtype.rfind("fp8", 0) == 0) return 1;  // float8_e4m3fn, fp8_e5m2 ...
  return 0;
}

// Size of a tensor from "16,112,112,147" (or "(3, 224, 224)") and its dtype.
std::optional<double> TensorBytes(const std::string& shape, const std::string& dtype) {
  int element = DtypeBytes(dtype);
  if (element == 0) return std::nullopt;
  double bytes = element;
  int dims = 0;
  std::string digits;
  for (size_t i = 0; i <= shape.size(); ++i) {
    char c = i < shape.size() ? shape[i] : ',';
    if (std::isdigit(static_cast<unsigned char>(c))) {
      digits += c;
    } else if (c == ',' || c == ')') {
      if (digits.empty() || digits.size() > 12) {
        if (!digits.empty()) return std::nullopt;
        continue;
      }
      bytes *= ParseDouble(digits).value_or(0);  // at most 12 digits: always a double
      digits.clear();
      ++dims;
    } else if (c != ' ' && c != '(' && c != '[' && c != ']') {
      return std::nullopt;  // symbolic or unreadable dimensions
    }
  }
  if (dims == 0 || bytes > 9e18) return std::nullopt;
  return bytes;
}

// Facts of GPU and framework allocators: what the allocator had left, what
// other processes hold, what the caching allocator keeps unallocated.
void DeriveAllocatorFacts(const Facts& facts, Facts* derived) {
  const FactValue* shape = FactIn(facts, "shape");
  const FactValue* dtype = FactIn(facts, "dtype");
  if (shape && dtype) {
    if (auto bytes = TensorBytes(shape->text, dtype->text)) (*derived)["tensor_bytes"] = SizeValue(*bytes, 0);
  }
  const FactValue* limit = FactIn(facts, "limit_bytes");
  const FactValue* in_use = FactIn(facts, "in_use_bytes");
  if (limit && in_use) {
    if (auto left = Difference(*limit, *in_use)) (*derived)["allocator_free_bytes"] = *left;
  }
  const FactValue* allocated = FactIn(facts, "allocated_bytes");
  const FactValue* reserved = FactIn(facts, "reserved_bytes");
  const FactValue* unallocated = FactIn(facts, "reserved_unallocated_bytes");
  if (unallocated) {
    (*derived)["cached_unallocated_bytes"] = *unallocated;
  } else if (allocated && reserved && reserved->integer >= allocated->integer) {
    if (auto cached = Difference(*reserved, *allocated)) (*derived)["cached_unallocated_bytes"] = *cached;
  }
  const FactValue* capacity = FactIn(facts, "capacity_bytes");
  const FactValue* free = FactIn(facts, "free_bytes");
  const FactValue* own = FactIn(facts, "process_used_bytes");
  double own_bytes = own ? own->number : -1, own_tolerance = own ? own->tolerance : 0;
  if (!own && allocated) {
    const FactValue* cached = FactIn(*derived, "cached_unallocated_bytes");
    own_bytes = allocated->number + (cached ? cached->number : 0);
    own_tolerance = allocated->tolerance + (cached ? cached->tolerance : 0);
  }
  if (capacity && free && own_bytes >= 0) {
    double others = capacity->number - free->number - own_bytes;
    (*derived)["other_use_bytes"] =
        SizeValue(std::max(0.0, others), capacity->tolerance + free->tolerance + own_tolerance);
  }
}

// Allocators that print totals instead of entries feed the same summary facts as
// a listing: BFC dumps (chunks in use and free, counted by aggregates) and the
// XRT breakdown ("Currently allocated", "Max free chunk").
void SummarizePrintedTotals(const Facts& facts, Facts* derived) {
  const std::pair<const char*, const char*> kSame[] = {{"allocated_total_bytes", "in_use_bytes"},
                                                       {"allocated_total_bytes", "used_bytes"},
                                                       {"free_total_bytes", "free_chunks_bytes"},
                                                       {"free_block_count", "free_chunk_count"},
                                                       {"largest_free_block_bytes", "largest_free_bytes"}};
  for (const auto& [summary, printed] : kSame) {
    const FactValue* v = FactIn(facts, printed);
    if (v && !derived->count(summary)) (*derived)[summary] = *v;
  }
}

}  // namespace

void DeriveFacts(const std::string& chip, Incident* incident) {
  Facts& facts = incident->facts;
  Facts& derived = incident->derived;
  derived.clear();
  SummarizeListing(incident);
  derived = incident->listing_facts;
  SummarizePrintedTotals(facts, &derived);
  DeriveSeriesFacts(incident->series, &derived);
  DeriveHistoryFacts(incident->history, &derived);
  if (!incident->phase.name.empty()) derived["phase"] = TextValue(incident->phase.name);  // phase(...)
  for (const auto& entry : incident->budget) {  // the budget printed before it, where its message is silent
    if (!FactIn(facts, entry.name) && !derived.count(entry.name)) derived[entry.name] = entry.value;
  }
  const FactValue* dtype = FactIn(facts, "model_dtype");
  if (!dtype) dtype = FactIn(derived, "model_dtype");  // from the config the log printed (its budget)
  if (dtype && DtypeBytes(dtype->text) > 0) derived["dtype_bytes"] = SizeValue(DtypeBytes(dtype->text), 0);
  if (!chip.empty()) {
    facts.emplace("chip", TextValue(chip));
    auto capacity = ChipCapacity(chip);
    if (capacity && !FactIn(facts, "capacity_bytes")) facts["capacity_bytes"] = SizeValue(*capacity, 0);
  }
  const FactValue* requested = FactIn(facts, "requested_bytes");
  const FactValue* free = FactIn(facts, "free_bytes");
  const FactValue* free_or_chunks = free ? free : FactIn(facts, "free_chunks_bytes");  // BFC dumps
  if (!free_or_chunks) free_or_chunks = FactIn(derived, "free_total_bytes");           // block maps
  const FactValue* capacity = FactIn(facts, "capacity_bytes");
  const FactValue* largest = FactIn(facts, "largest_free_bytes");
  if (!largest) largest = FactIn(facts, "reservable_bytes");
  if (!largest) largest = FactIn(derived, "largest_free_block_bytes");
  if (largest) derived["largest_contiguous_bytes"] = *largest;
  if (requested && free) {
    if (auto shortfall = Difference(*requested, *free)) derived["shortfall_bytes"] = *shortfall;
    if (free->integer > 0) derived["request_to_free_ratio"] = RatioValue(requested->number / free->number);
  }
  if (requested && capacity && capacity->integer > 0) {
    derived["request_to_capacity_ratio"] = RatioValue(requested->number / capacity->number);
  }
  if (free_or_chunks && largest && free_or_chunks->integer > 0) {
    double ratio = std::max(0.0, (free_or_chunks->number - largest->number) / free_or_chunks->number);
    derived["fragmentation_ratio"] = RatioValue(ratio);
  }
  Ratio(facts, "exceeded_by_bytes", "used_bytes", "overflow_ratio", &derived);
  Ratio(facts, "used_bytes", "limit_bytes", "usage_to_limit_ratio", &derived);
  Ratio(facts, "arguments_bytes", "limit_bytes", "arguments_ratio", &derived);
  Ratio(facts, "hlo_temp_bytes", FactIn(facts, "used_bytes") ? "used_bytes" : "total_usage_bytes",
        "hlo_temp_ratio", &derived);
  const FactValue* largest_allocation = FactIn(derived, "largest_allocation_bytes");
  const FactValue* limit = FactIn(facts, "limit_bytes");
  if (largest_allocation && limit && limit->integer > 0)
    derived["largest_allocation_ratio"] = RatioValue(largest_allocation->number / limit->number);
  DeriveAllocatorFacts(facts, &derived);
  if (!derived.count("largest_contiguous_bytes")) {
    const FactValue* reported = FactIn(facts, "reported_largest_free_bytes");
    if (reported && reported->integer > 0)
      derived["largest_contiguous_bytes"] = *reported;  // 0 is not trusted
  }
}

}  // namespace oomlens
